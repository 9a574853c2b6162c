import { describe, expect, it } from 'vitest';
import { sentinelEntry } from '../../../lib/keys/sentinel-entry';

const BASE = {
  CLOUDOPS_API_URL: 'http://127.0.0.1:9',
  CLOUDOPS_ORGANIZATION_ID: '00000000-0000-4000-8000-000000000001',
  CLOUDOPS_KEY_SENTINEL_KEY_SECRET_ID: 'cloudops/management-key',
  CLOUDOPS_KEY_SENTINEL_SECRET_IDS: 'cloudops/management-key',
  CLOUDOPS_WATCHDOG_TABLE: 'watch',
};

describe('the key sentinel reads the notifier variables of SNS alone', () => {
  it('a variable of a notifier it cannot use stops it at start, named', () => {
    expect(() =>
      sentinelEntry({
        env: {
          ...BASE,
          CLOUDOPS_WATCHDOG_WEBHOOK_URL: 'https://hooks.example/key-sentinel',
          CLOUDOPS_WATCHDOG_ROUTES: '{"routes":[]}',
        },
      }),
    ).toThrow(
      'invalid configuration: CLOUDOPS_WATCHDOG_ROUTES, CLOUDOPS_WATCHDOG_WEBHOOK_URL: the key sentinel notifies through sns only, and reminds by CLOUDOPS_KEY_AUDIT_REMINDER_DAYS (no watchdog reminder or flap setting)',
    );
  });

  it('a watchdog reminder or flap setting (which it would not follow) stops it at start, named', () => {
    expect(() =>
      sentinelEntry({
        env: {
          ...BASE,
          CLOUDOPS_WATCHDOG_REMINDER_MINUTES: '60',
          CLOUDOPS_WATCHDOG_FLAP_MAX_CHANGES: '3',
        },
      }),
    ).toThrow(
      /^invalid configuration: CLOUDOPS_WATCHDOG_FLAP_MAX_CHANGES, CLOUDOPS_WATCHDOG_REMINDER_MINUTES: .*reminds by CLOUDOPS_KEY_AUDIT_REMINDER_DAYS/,
    );
  });

  it('the topic it is bound to is read, not refused', () => {
    expect(() =>
      sentinelEntry({
        env: { ...BASE, CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:t' },
      }),
    ).not.toThrow();
  });
});

describe('the key sentinel reads the rotator settings it uses, as the rotator reads them', () => {
  it.each([
    [{ CLOUDOPS_KEY_NAME_PREFIX: 'has space' }, /CLOUDOPS_KEY_NAME_PREFIX.*letters, digits/],
    [{ CLOUDOPS_KEY_EXPIRY_WARN_DAYS: '99999999999' }, /CLOUDOPS_KEY_EXPIRY_WARN_DAYS/],
  ])('a bad %j stops it at start, named', (bad, message) => {
    expect(() => sentinelEntry({ env: { ...BASE, ...bad } })).toThrow(message);
  });
});
