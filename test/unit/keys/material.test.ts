import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { generateKeyMaterial, hashDataFor, sha256Base64 } from '../../../lib/keys/material';

describe('key material and hashData', () => {
  it('hashes like the documented shell pipeline (sha256, raw digest, base64)', () => {
    // Known vector: SHA-256("abc").
    expect(sha256Base64('abc')).toBe('ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=');
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
    expect(sha256Base64(text)).toBe(viaShell);
  });

  it('makes distinct, well-formed keys and the matching hashData', () => {
    const a = generateKeyMaterial();
    const b = generateKeyMaterial();
    expect(a.keyId).not.toBe(b.keyId);
    expect(a.keySecret).toMatch(/^[A-Za-z0-9]{40}$/);
    const hash = hashDataFor(a);
    expect(hash.keyIdSuffix).toBe(a.keyId.slice(-4));
    expect(hash.keyIdHash).toBe(sha256Base64(a.keyId));
    expect(hash.keySecretHash).toBe(sha256Base64(a.keySecret));
    expect(JSON.stringify(hash)).not.toContain(a.keySecret);
  });
});
