import { base64url, compactDecrypt } from 'jose';

/** A bundle for many studies with their report PDFs stays well under this once inflated. */
const MAX_PLAINTEXT_BYTES = 64 * 1024 * 1024;

/**
 * Decrypts one file of a link (compact JWE, `alg dir`, `enc A256GCM`, `zip DEF`) with the link's key
 * and parses its JSON. jose inflates `zip: DEF` itself, within the limit given here.
 */
export async function decryptShlFile(jwe: string, key: string): Promise<unknown> {
  const { plaintext } = await compactDecrypt(jwe.trim(), base64url.decode(key), {
    keyManagementAlgorithms: ['dir'],
    contentEncryptionAlgorithms: ['A256GCM'],
    maxDecompressedLength: MAX_PLAINTEXT_BYTES,
  });
  return JSON.parse(new TextDecoder().decode(plaintext));
}
