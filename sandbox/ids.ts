import { createHash, randomBytes, randomUUID } from 'node:crypto';

/** UUIDv4 for records and request ids. */
export function uuidV4(): string {
  return randomUUID();
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
export function isUuid(value: string): boolean {
  return UUID_RE.test(value);
}

/** Mongo ObjectId-like id (the observability stack stores dashboards, tiles and alerts in Mongo). */
export function objectId(nowMs: number = Date.now()): string {
  const seconds = Math.floor(nowMs / 1000)
    .toString(16)
    .padStart(8, '0')
    .slice(-8);
  return seconds + randomBytes(8).toString('hex');
}

const OBJECT_ID_RE = /^[0-9a-f]{24}$/;
export function isObjectId(value: string): boolean {
  return OBJECT_ID_RE.test(value);
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyz';

/** Random text from a crypto source (rejection sampling keeps it unbiased). */
export function randomText(length: number, alphabet: string = ALNUM): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 256 - (256 % alphabet.length)) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Key ID (the Basic user) and key secret in the real service's general shape. */
export function newKeyMaterial(): { keyId: string; keySecret: string } {
  return {
    keyId: randomText(20, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'),
    keySecret: '4b1d' + randomText(38),
  };
}

/** SHA-256 of the UTF-8 text, base64 of the raw digest (API-FACTS, hashData). */
export function sha256Base64(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64');
}
