import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { generateKeyMaterial, hashDataFor } from '../../../lib/keys/material';

/** hashData of a key whose ID and secret are both `text`. */
const hashesOf = (text: string) => hashDataFor({ keyId: text, keySecret: text });

describe('key material and hashData', () => {
  it('hashes like the documented shell pipeline (sha256, raw digest, base64)', () => {
    // Known vector: SHA-256("abc").
    expect(hashesOf('abc')).toEqual({
      keyIdHash: 'ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=',
      keyIdSuffix: 'abc',
      keySecretHash: 'ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=',
    });
    const text = 'Kx7 unicode ✓';
    const viaShell = execFileSync(
      'sh',
      ['-c', 'printf %s "$T" | openssl dgst -sha256 -binary | base64'],
      {
        env: { ...process.env, T: text },
      },
    )
      .toString()
      .trim();
    expect(hashesOf(text).keySecretHash).toBe(viaShell);
  });

  it('makes distinct, well-formed keys and the matching hashData', () => {
    const a = generateKeyMaterial();
    const b = generateKeyMaterial();
    expect(a.keyId).not.toBe(b.keyId);
    expect(a.keySecret).toMatch(/^[A-Za-z0-9]{40}$/);
    const hash = hashDataFor(a);
    expect(hash.keyIdSuffix).toBe(a.keyId.slice(-4));
    expect(hash.keyIdHash).toBe(hashesOf(a.keyId).keyIdHash);
    expect(hash.keySecretHash).toBe(hashesOf(a.keySecret).keySecretHash);
    expect(hash.keyIdHash).not.toBe(hash.keySecretHash);
    expect(JSON.stringify(hash)).not.toContain(a.keySecret);
  });
});
