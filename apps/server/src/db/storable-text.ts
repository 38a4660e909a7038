/**
 * The one place where text becomes storable. PostgreSQL refuses a NUL byte in `text` (22021) and a
 * `\u0000` escape or an unpaired surrogate escape in `jsonb` (22P05); a file name, a DICOM value or
 * an error message can carry either. Every parameter sent to the database (Drizzle's queries and
 * the job queue's) goes through `storableParam`, so no input can make a write fail this way: the
 * offending characters become U+FFFD (the replacement character), visibly, and nothing else changes.
 */

const REPLACEMENT = '\ufffd';
// Lone surrogates and NULs as raw characters.
// eslint-disable-next-line no-control-regex -- finding NUL bytes is the point
const RAW_UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// The same as JSON escapes (`\u0000`, a surrogate escape), preceded by an even number of backslashes
// so an escaped backslash followed by the letters "u0000" is left alone. A high surrogate escape
// directly followed by a low one is a valid pair and is matched whole, to be kept.
const ESCAPED_UNSTORABLE =
  /(?<=(?:^|[^\\])(?:\\\\)*)\\u(?:[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2}|0000|[dD][89a-fA-F][0-9a-fA-F]{2})/g;

/** The text with NULs and unpaired surrogates replaced by U+FFFD. */
export function storableText(text: string): string {
  return text.replace(RAW_UNSTORABLE, REPLACEMENT);
}

/** JSON text whose escapes PostgreSQL's jsonb would refuse, with those escapes replaced by `\ufffd`. */
function storableJsonText(text: string): string {
  if (!text.includes('\\u')) return text;
  return text.replace(ESCAPED_UNSTORABLE, (escape) => (escape.length === 12 ? escape : '\\ufffd'));
}

/**
 * A query parameter as the database can store it. Strings are cleaned of raw NULs and lone
 * surrogates; strings that are JSON documents (how jsonb values travel) also of their escaped forms.
 */
export function storableParam(value: unknown): unknown {
  if (typeof value === 'string') {
    const text = storableText(value);
    const first = text.charCodeAt(0);
    // '{', '[' or '"': a JSON document (jsonb parameters are serialised before they get here).
    return first === 0x7b || first === 0x5b || first === 0x22 ? storableJsonText(text) : text;
  }
  if (Array.isArray(value)) return value.map(storableParam);
  return value;
}

export function storableParams<T>(values: T[] | undefined): T[] | undefined {
  return values?.map((v) => storableParam(v) as T);
}
