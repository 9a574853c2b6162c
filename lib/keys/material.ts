import { createHash, randomInt } from 'node:crypto';
import { registerSecret } from '../redact';
import type { HashData } from '../schemas';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const KEY_ID_LENGTH = 20;
const KEY_SECRET_LENGTH = 40;

export interface KeyMaterial {
  keyId: string;
  keySecret: string;
}

function randomText(length: number): string {
  let out = '';
  // randomInt is uniform (rejection sampling), unlike bytes modulo the alphabet size.
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** A new key ID and secret, made locally with a CSPRNG; the secret is registered for redaction. */
export function generateKeyMaterial(): KeyMaterial {
  const material = { keyId: randomText(KEY_ID_LENGTH), keySecret: randomText(KEY_SECRET_LENGTH) };
  registerSecret(material.keySecret);
  return material;
}

/** SHA-256 of the UTF-8 text, as base64 of the raw 32-byte digest (API-FACTS, hashData). */
function sha256Base64(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64');
}

/** The suffix the service shows for a key: the last 4 characters of the key ID. */
export function keySuffixOf(keyId: string): string {
  return keyId.slice(-4);
}

/** hashData for create-key: the service stores only these hashes. */
export function hashDataFor(material: KeyMaterial): HashData {
  return {
    keyIdHash: sha256Base64(material.keyId),
    keyIdSuffix: keySuffixOf(material.keyId),
    keySecretHash: sha256Base64(material.keySecret),
  };
}
