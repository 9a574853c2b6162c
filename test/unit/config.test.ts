import { describe, expect, it } from 'vitest';
import { readConnectionEnv } from '../../lib/config';
import { ConfigError } from '../../lib/errors';

const ORG = '6f1c2a8e-5d4b-4c3a-9e8f-7a6b5c4d3e2f';

describe('connection config from env', () => {
  it('applies defaults and parses lists and rate limits', () => {
    const config = readConnectionEnv({
      CLOUDOPS_API_URL: 'http://127.0.0.1:9000',
      CLOUDOPS_SERVICE_ID: `${ORG}, ${ORG}`,
      CLOUDOPS_MANAGEMENT_RATE_LIMIT: '5/2s',
    });
    expect(config.CLOUDOPS_OBSERVABILITY_MODE).toBe('managed');
    expect(config.CLOUDOPS_SERVICE_ID).toEqual([ORG, ORG]);
    expect(config.CLOUDOPS_MANAGEMENT_RATE_LIMIT).toEqual({ limit: 5, windowMs: 2000 });
    expect(config.CLOUDOPS_OBSERVABILITY_RATE_LIMIT).toEqual({ limit: 100, windowMs: 60_000 });
  });

  it('names every bad variable at once and never echoes a value', () => {
    const attempt = () =>
      readConnectionEnv({
        CLOUDOPS_API_URL: 'not a url',
        CLOUDOPS_OBSERVABILITY_MODE: 'hosted',
        CLOUDOPS_ORGANIZATION_ID: 'secretish-value-1',
      });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/CLOUDOPS_API_URL/);
    expect(attempt).toThrow(/CLOUDOPS_OBSERVABILITY_MODE/);
    expect(attempt).toThrow(/CLOUDOPS_ORGANIZATION_ID/);
    expect(attempt).not.toThrow(/secretish-value-1/);
  });

  it('takes API URLs with or without their prefix or a trailing slash, and keeps the base', () => {
    for (const suffix of ['', '/', '/v1', '/v1/']) {
      expect(
        readConnectionEnv({ CLOUDOPS_API_URL: `https://api.example.com${suffix}` }),
      ).toMatchObject({
        CLOUDOPS_API_URL: 'https://api.example.com',
      });
    }
    expect(
      readConnectionEnv({ CLOUDOPS_OBSERVABILITY_URL: 'https://obs.example.com/api/v2/' })
        .CLOUDOPS_OBSERVABILITY_URL,
    ).toBe('https://obs.example.com');
    // Only the API's own prefix goes: a base path before it stays, a look-alike is kept whole.
    expect(
      readConnectionEnv({ CLOUDOPS_API_URL: 'https://gw.example.com/cloud/v1' }).CLOUDOPS_API_URL,
    ).toBe('https://gw.example.com/cloud');
    expect(
      readConnectionEnv({ CLOUDOPS_API_URL: 'https://api.example.com/v10' }).CLOUDOPS_API_URL,
    ).toBe('https://api.example.com/v10');
  });

  it('reports missing required variables by name', () => {
    expect(() => readConnectionEnv({}, ['CLOUDOPS_API_URL', 'CLOUDOPS_KEY_ID'])).toThrow(
      /missing configuration: set CLOUDOPS_API_URL, CLOUDOPS_KEY_ID/,
    );
  });
});
