import { describe, expect, it } from 'vitest';
import { formatIssues } from '../../../lib/format-issues';
import { keyRecord } from '../../../lib/schemas/key';
import { managementKeySecret } from '../../../lib/schemas/secrets';

const RECORD = {
  id: '3f0c8b5e-9d2a-4c1b-8e7f-1a2b3c4d5e6f',
  name: 'ci',
  keySuffix: 'abcd',
};

/** The parsed expireAt, or the lines a user reads. */
function expireAtOf(schema: typeof keyRecord | typeof managementKeySecret, fields: object) {
  const input =
    schema === keyRecord
      ? { ...RECORD, ...fields }
      : { organizationId: RECORD.id, keyId: 'k', keySecret: 's3cret-value', ...fields };
  const result = schema.safeParse(input);
  return result.success ? result.data.expireAt : formatIssues(result.error.issues);
}

describe('expireAt as the service sends it (API-FACTS: absent, null or empty = never)', () => {
  it.each([keyRecord, managementKeySecret])('never expires: absent, null, empty', (schema) => {
    expect(expireAtOf(schema, {})).toBeNull();
    expect(expireAtOf(schema, { expireAt: null })).toBeNull();
    expect(expireAtOf(schema, { expireAt: '' })).toBeNull();
    expect(expireAtOf(schema, { expireAt: undefined })).toBeNull();
  });

  it.each([keyRecord, managementKeySecret])('an ISO date-time with Z or an offset', (schema) => {
    expect(expireAtOf(schema, { expireAt: '2026-12-01T00:00:00Z' })).toBe('2026-12-01T00:00:00Z');
    expect(expireAtOf(schema, { expireAt: '2026-12-01T00:00:00.5+02:00' })).toBe(
      '2026-12-01T00:00:00.5+02:00',
    );
  });

  it.each([keyRecord, managementKeySecret])('anything else is refused, named', (schema) => {
    expect(expireAtOf(schema, { expireAt: 'tomorrow' })).toEqual([
      'expireAt: Invalid ISO datetime',
    ]);
    expect(expireAtOf(schema, { expireAt: '2026-12-01' })).toEqual([
      'expireAt: Invalid ISO datetime',
    ]);
    expect(expireAtOf(schema, { expireAt: 0 })).toEqual([
      'expireAt: Invalid input: expected string, received number',
    ]);
  });
});
