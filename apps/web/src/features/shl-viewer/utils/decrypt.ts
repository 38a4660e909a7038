import { base64url, compactDecrypt } from 'jose';

/** A bundle for many studies with their report PDFs stays well under this once inflated. */
const MAX_PLAINTEXT_BYTES = 64 * 1024 * 1024;

async function inflateRaw(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new DecompressionStream('deflate-raw');
  const writer = stream.writable.getWriter();
  // The reader below surfaces any failure; these promises settle with it.
  writer.write(bytes as Uint8Array<ArrayBuffer>).catch(() => undefined);
  writer.close().catch(() => undefined);
  const chunks: Uint8Array[] = [];
  let length = 0;
  const reader = stream.readable.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    chunks.push(value);
    length += value.byteLength;
    if (length > MAX_PLAINTEXT_BYTES) throw new Error('the file inflates past the limit');
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/**
 * Decrypts one file of a link (compact JWE, `alg dir`, `enc A256GCM`, `zip DEF`) with the link's key
 * and parses its JSON. jose inflates `zip: DEF` itself (within the limit given here); should a
 * version hand the deflated bytes back instead, they are inflated here.
 */
export async function decryptShlFile(jwe: string, key: string): Promise<unknown> {
  const { plaintext, protectedHeader } = await compactDecrypt(jwe.trim(), base64url.decode(key), {
    keyManagementAlgorithms: ['dir'],
    contentEncryptionAlgorithms: ['A256GCM'],
    maxDecompressedLength: MAX_PLAINTEXT_BYTES,
  });
  let bytes = plaintext;
  const first = bytes.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
  const looksLikeJson = first === 0x7b || first === 0x5b;
  if (protectedHeader.zip === 'DEF' && !looksLikeJson) bytes = await inflateRaw(bytes);
  return JSON.parse(new TextDecoder().decode(bytes));
}
