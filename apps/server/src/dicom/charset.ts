import iconv from 'iconv-lite';

/**
 * Decodes DICOM text values by their Specific Character Set (0008,0005), PS3.5 §6.1 and Annex H–K:
 * single-byte ISO 8859 sets, UTF-8, GB18030/GBK, and ISO 2022 code extensions where escape
 * sequences switch between ASCII, JIS X 0201/0208/0212, KS X 1001, GB 2312 and ISO 8859 parts.
 */

/** Defined term (without any `ISO 2022 ` prefix) → iconv-lite encoding of its single-byte or multi-byte form. */
const TERM_ENCODINGS: Record<string, string> = {
  '': 'latin1',
  ISO_IR_6: 'latin1',
  ISO_IR_100: 'latin1',
  ISO_IR_101: 'iso-8859-2',
  ISO_IR_109: 'iso-8859-3',
  ISO_IR_110: 'iso-8859-4',
  ISO_IR_144: 'iso-8859-5',
  ISO_IR_127: 'iso-8859-6',
  ISO_IR_126: 'iso-8859-7',
  ISO_IR_138: 'iso-8859-8',
  ISO_IR_148: 'iso-8859-9',
  ISO_IR_203: 'iso-8859-15',
  ISO_IR_166: 'tis-620',
  ISO_IR_13: 'shift_jis',
  ISO_IR_14: 'shift_jis',
  ISO_IR_87: 'euc-jp',
  ISO_IR_159: 'euc-jp',
  ISO_IR_149: 'euc-kr',
  ISO_IR_58: 'gb2312',
  ISO_IR_192: 'utf8',
  GB18030: 'gb18030',
  GBK: 'gbk',
};

/** How bytes after an escape sequence are to be decoded. */
type Mode =
  | { kind: 'single'; encoding: string }
  /** 94x94 sets invoked in G0 (7-bit bytes): set the high bit of each byte and decode as EUC. */
  | { kind: 'g0-double'; encoding: 'euc-jp' | 'euc-jp-0212' }
  /** Sets invoked in G1 (8-bit bytes): EUC byte form already. */
  | { kind: 'g1'; encoding: string };

const ESCAPES: Record<string, Mode> = {
  '\x1b(B': { kind: 'single', encoding: 'latin1' }, // ASCII
  '\x1b(J': { kind: 'single', encoding: 'shift_jis' }, // JIS X 0201 Romaji
  '\x1b)I': { kind: 'g1', encoding: 'shift_jis' }, // JIS X 0201 Katakana
  '\x1b$B': { kind: 'g0-double', encoding: 'euc-jp' }, // JIS X 0208
  '\x1b$(D': { kind: 'g0-double', encoding: 'euc-jp-0212' }, // JIS X 0212
  '\x1b$)C': { kind: 'g1', encoding: 'euc-kr' }, // KS X 1001
  '\x1b$)A': { kind: 'g1', encoding: 'gb2312' }, // GB 2312
  '\x1b-A': { kind: 'g1', encoding: 'latin1' },
  '\x1b-B': { kind: 'g1', encoding: 'iso-8859-2' },
  '\x1b-C': { kind: 'g1', encoding: 'iso-8859-3' },
  '\x1b-D': { kind: 'g1', encoding: 'iso-8859-4' },
  '\x1b-L': { kind: 'g1', encoding: 'iso-8859-5' },
  '\x1b-G': { kind: 'g1', encoding: 'iso-8859-6' },
  '\x1b-F': { kind: 'g1', encoding: 'iso-8859-7' },
  '\x1b-H': { kind: 'g1', encoding: 'iso-8859-8' },
  '\x1b-M': { kind: 'g1', encoding: 'iso-8859-9' },
  '\x1b-T': { kind: 'g1', encoding: 'tis-620' },
  '\x1b-b': { kind: 'g1', encoding: 'iso-8859-15' },
};

export interface CharacterSet {
  /** Terms as written in (0008,0005), e.g. `['', 'ISO 2022 IR 87']`. */
  terms: string[];
  decode(bytes: Uint8Array): string;
}

function termKey(term: string): string {
  const t = term.trim().toUpperCase();
  if (t === '') return '';
  // `ISO 2022 IR 87` and `ISO_IR 87` name the same set; only the code-extension technique differs.
  const m = /^ISO(?:_| 2022 )IR[ _]?(\d+)$/.exec(t);
  if (m) return `ISO_IR_${m[1]}`;
  return t.replace(/\s+/g, '_');
}

/** Parses the raw (0008,0005) value (possibly absent) into a decoder. Unknown terms fall back to Latin-1. */
export function characterSet(raw: string | undefined): CharacterSet {
  const terms = (raw ?? '').split('\\').map((t) => t.trim());
  const first = termKey(terms[0] ?? '');
  const usesExtensions = terms.length > 1 || (terms[0] ?? '').toUpperCase().startsWith('ISO 2022');
  const initialEncoding = TERM_ENCODINGS[first] ?? 'latin1';
  const initial: Mode =
    first === 'ISO_IR_13'
      ? { kind: 'g1', encoding: 'shift_jis' }
      : { kind: 'single', encoding: initialEncoding };
  return {
    terms,
    decode(bytes) {
      if (!usesExtensions || !bytes.includes(0x1b)) return decodeWith(initial, bytes);
      return decodeIso2022(bytes, initial);
    },
  };
}

function decodeIso2022(bytes: Uint8Array, initial: Mode): string {
  let out = '';
  let mode = initial;
  let start = 0;
  let i = 0;
  while (i < bytes.length) {
    if (bytes[i] !== 0x1b) {
      i++;
      continue;
    }
    out += decodeWith(mode, bytes.subarray(start, i));
    const found = Object.entries(ESCAPES).find(([seq]) => matchesAt(bytes, i, seq));
    if (found) {
      mode = found[1];
      i += found[0].length;
    } else {
      // An escape we do not know: drop the ESC byte and carry on in the current set.
      i++;
    }
    start = i;
  }
  out += decodeWith(mode, bytes.subarray(start));
  return out;
}

function matchesAt(bytes: Uint8Array, at: number, seq: string): boolean {
  if (at + seq.length > bytes.length) return false;
  for (let k = 0; k < seq.length; k++) if (bytes[at + k] !== seq.charCodeAt(k)) return false;
  return true;
}

function decodeWith(mode: Mode, bytes: Uint8Array): string {
  if (bytes.length === 0) return '';
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  switch (mode.kind) {
    case 'single':
    case 'g1':
      // Latin-1 (the default set, and most files) needs no codec.
      return mode.encoding === 'latin1' ? buf.toString('latin1') : iconv.decode(buf, mode.encoding);
    case 'g0-double': {
      const euc: number[] = [];
      for (let k = 0; k < buf.length; k++) {
        const b = buf[k]!;
        // Delimiters and spaces between double-byte characters stay single bytes.
        if (b < 0x21 || b > 0x7e) {
          euc.push(b);
          continue;
        }
        if (mode.encoding === 'euc-jp-0212') euc.push(0x8f);
        euc.push(b | 0x80, (buf[k + 1] ?? 0) | 0x80);
        k++;
      }
      return iconv.decode(Buffer.from(euc), 'euc-jp');
    }
  }
}
