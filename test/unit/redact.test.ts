import { describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { CloudOpsError } from '../../lib/errors';
import { redact, redactText, registerSecret, REDACTED } from '../../lib/redact';

describe('redaction', () => {
  it('a bare origin holds no credential: registering it masks nothing, a URL with a path is masked', () => {
    registerSecret('http://127.0.0.1:45453');
    expect(redactText('GET http://127.0.0.1:45453/health failed')).toBe(
      'GET http://127.0.0.1:45453/health failed',
    );
    registerSecret('http://127.0.0.1:45454/hooks/b7c1e2d9a4f08e63');
    expect(redactText('posting to http://127.0.0.1:45454/hooks/b7c1e2d9a4f08e63')).not.toContain(
      'b7c1e2d9a4f08e63',
    );
  });

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

describe('secret URLs (Slack / webhook destinations)', () => {
  const token = 'Zq9vXb2Lk8TmW4rNc7YpH3sD';
  const configured = `https://HOOKS.Example.COM/services/T0AAA1/B0BBB2/${token}`;

  it('masks the URL as configured, as normalised, percent-encoded, and its token alone', () => {
    registerSecret(configured);
    const normalised = new URL(configured).href;
    expect(normalised).not.toBe(configured); // the host is lower-cased
    for (const text of [
      configured,
      normalised,
      encodeURIComponent(configured),
      encodeURIComponent(normalised),
      `request to ${normalised} failed, reason: connect ECONNREFUSED`,
      `token ${token} in a body`,
      `hooks.example.com/services/T0AAA1/B0BBB2/${token}`,
    ]) {
      const out = redactText(text);
      expect(out).not.toContain(token);
      expect(out).toContain(REDACTED);
    }
  });

  it('masks path tokens in any printed URL, registered or not; ids and names stay readable', () => {
    expect(redactText('POST https://hooks.slack.com/services/T1/B2/short failed')).toBe(
      `POST https://hooks.slack.com/services/${REDACTED} failed`,
    );
    expect(redactText('GET https://hooks.example/in/4f9aQ2x7Lm0pR8sT3vW1 ok')).toBe(
      `GET https://hooks.example/in/${REDACTED} ok`,
    );
    expect(redactText('https://hooks.example/in?channel=ops&token=abc123')).toBe(
      `https://hooks.example/in?channel=ops&token=${REDACTED}`,
    );
    const api =
      'https://api.example/v1/organizations/600d6b92-7a2a-4b38-9d3c-691d0c101f1d/services/pipes';
    expect(redactText(api)).toBe(api);
    const dashboard = 'https://obs.example/api/v2/dashboards/65f0c0ffee0123456789abcd';
    expect(redactText(dashboard)).toBe(dashboard);
  });

  it('a URL that is not http(s) registers as itself only', () => {
    registerSecret('not a url at all, just a secret');
    expect(redactText('x not a url at all, just a secret y')).toBe(`x ${REDACTED} y`);
  });
});
