import { describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { CloudOpsError } from '../../lib/errors';
import { redact, redactText, registerSecret, REDACTED } from '../../lib/redact';

describe('redaction', () => {
  it('masks secret fields wherever they are nested', () => {
    const out = redact({
      keyId: 'visible-id',
      keySecret: 'hidden-secret',
      nested: [{ headers: { Authorization: 'Basic abc' } }],
      source: {
        objectStorage: { connectionString: 'DefaultEndpointsProtocol=https;AccountKey=zzz' },
      },
    });
    expect(out).toEqual({
      keyId: 'visible-id',
      keySecret: REDACTED,
      nested: [{ headers: { Authorization: REDACTED } }],
      source: { objectStorage: { connectionString: REDACTED } },
    });
  });

  it('masks registered secret values and auth header values inside free text', () => {
    registerSecret('s3cr3t-value-42');
    expect(redactText('bad creds s3cr3t-value-42 in url')).toBe(`bad creds ${REDACTED} in url`);
    expect(redactText('Authorization: Bearer eyJhbGciOi.abc')).toBe(
      `Authorization: Bearer ${REDACTED}`,
    );
  });

  it('keeps secrets out of error messages and log lines', () => {
    registerSecret('another-secret-99');
    const error = new CloudOpsError('failed with another-secret-99');
    expect(error.message).not.toContain('another-secret-99');
    const lines: string[] = [];
    const logger = createLogger({ sink: (line) => lines.push(line) });
    logger.error('boom', { error, token: 'tok-123456', detail: 'another-secret-99' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('another-secret-99');
    expect(lines[0]).not.toContain('tok-123456');
    expect(JSON.parse(lines[0])).toMatchObject({
      level: 'error',
      message: 'boom',
      token: REDACTED,
    });
  });
});
