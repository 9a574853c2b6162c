import { describe, expect, it } from 'vitest';
import { parseSecret, staticCredentials } from '../../../lib/credentials';
import { ValidationError } from '../../../lib/errors';
import { registeredSecrets } from '../../../lib/redact';
import {
  managementAuth,
  managementKeySecret,
  observabilityTokenSecret,
} from '../../../lib/schemas';
import { managementSecret } from './fixtures';

function thrown(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

describe('parseSecret', () => {
  it('returns the typed value and registers the key secret for redaction', () => {
    const value = parseSecret(
      'prod/mgmt',
      JSON.stringify(managementSecret('parse-ok-secret-1')),
      managementKeySecret,
    );
    expect(value.keyId).toBe('AKEYID0001');
    expect(value.expireAt).toBe('2030-01-01T00:00:00Z');
    expect(registeredSecrets()).toContain('parse-ok-secret-1');
    const token = parseSecret('prod/obs', '{"token":"parse-ok-token-1"}', observabilityTokenSecret);
    expect(token.token).toBe('parse-ok-token-1');
    expect(registeredSecrets()).toContain('parse-ok-token-1');
  });

  it('names the secret id and every bad field, and never echoes a value', () => {
    const bad = {
      ...managementSecret('RECOGNISABLE-key-secret-42'),
      organizationId: 'RECOGNISABLE-not-a-uuid',
      roles: ['RECOGNISABLE-role'],
      keyId: 12345,
    };
    const error = thrown(() => parseSecret('prod/mgmt', JSON.stringify(bad), managementKeySecret));
    expect(error.source).toBe('prod/mgmt');
    expect(error.message).toContain('Secret prod/mgmt is malformed');
    expect(error.issues.map((line) => line.split(':')[0])).toEqual([
      'organizationId',
      'keyId',
      'roles[0]',
    ]);
    expect(error.issues.join('\n')).toMatch(/keyId: .*expected string/);
    const everything = [error.message, ...error.issues, String(error.stack)].join('\n');
    expect(everything).not.toContain('RECOGNISABLE');
    expect(registeredSecrets()).toContain('RECOGNISABLE-key-secret-42');
  });

  it('masks only secret values in the issues: role names and ids the secret holds stay readable', () => {
    const bad = { ...managementSecret('readable-test-secret-7'), roles: ['admin', 'bogus'] };
    const error = thrown(() => parseSecret('prod/mgmt', JSON.stringify(bad), managementKeySecret));
    // "admin" is a string of the secret too; hiding it would make the hint useless.
    expect(error.issues).toEqual([
      'roles[1]: Invalid option: expected one of "admin"|"developer"|"query_endpoints"',
    ]);
    expect(error.message).not.toContain('[REDACTED]');
  });

  it('reports a missing field by path', () => {
    const { keySecret: _drop, ...rest } = managementSecret('unused');
    const error = thrown(() => parseSecret('prod/mgmt', JSON.stringify(rest), managementKeySecret));
    expect(error.issues).toEqual([expect.stringMatching(/^keySecret: .*expected string/)]);
  });

  it('keeps fields it does not know and reads an empty expiry as never, beside the auth fields', () => {
    const stored = { ...managementSecret('loose-secret-3'), expireAt: '', rotatedBy: 'ops' };
    const value = parseSecret('prod/mgmt', JSON.stringify(stored), managementKeySecret);
    expect(value).toEqual({ ...stored, expireAt: null });
    const { roles: _roles, ...auth } = managementSecret('loose-secret-3');
    expect(managementAuth.parse({ ...auth, rotatedBy: 'ops' })).toEqual({
      ...auth,
      rotatedBy: 'ops',
    });
  });

  it('does not quote invalid JSON (JSON.parse would)', () => {
    const error = thrown(() =>
      parseSecret('prod/obs', '{"token": "RECOGNISABLE-half-json', observabilityTokenSecret),
    );
    expect(error.message).toBe('Secret prod/obs is not valid JSON');
    expect(`${error.message}${error.issues.join('')}`).not.toContain('RECOGNISABLE');
    expect(
      thrown(() => parseSecret('prod/obs', undefined, observabilityTokenSecret)).message,
    ).toMatch(/no SecretString/);
  });
});

describe('staticCredentials', () => {
  it('validates once and serves the same value from get() and refresh()', async () => {
    const provider = staticCredentials(
      'CLOUDOPS_KEY_SECRET',
      managementSecret('static-secret-001'),
      managementKeySecret,
    );
    expect(provider.label).toBe('CLOUDOPS_KEY_SECRET');
    expect((await provider.get()).keySecret).toBe('static-secret-001');
    expect(await provider.refresh()).toBe(await provider.get());
  });

  it('fails at construction naming the label and field', () => {
    const error = thrown(() => staticCredentials('env', { token: '' }, observabilityTokenSecret));
    expect(error.message).toMatch(/^Secret env is malformed: token: /);
  });
});
