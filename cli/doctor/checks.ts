/**
 * What `cloudops doctor` checks, each as one result naming the setting to fix when it fails.
 * The checks take their clients and readers as parameters; doctor.ts wires the real ones.
 */
import type { DescribeSecretCommandOutput } from '@aws-sdk/client-secrets-manager';
import type { ConnectionEnv } from '../../lib/config';
import { UNIT_MS } from '../../lib/duration';
import type { KeyRecord } from '../../lib/schemas';
import { keySuffixOf } from '../../lib/keys/material';
import { findKeyRecord } from '../../lib/keys/ownership';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface Check {
  /** What was checked: `settings`, `management API`, `secret CLOUDOPS_KEY_SECRET_ID`, ... */
  name: string;
  status: CheckStatus;
  detail: string;
  /** The setting(s) to change when the check did not pass. */
  fix?: string;
  /** A failure in the settings themselves: nothing was called, the exit code is 64. */
  setup?: boolean;
}

/** Which settings give the management key, by where it comes from. */
export function keySettings(config: Pick<ConnectionEnv, 'CLOUDOPS_KEY_SECRET_ID'>): string {
  return config.CLOUDOPS_KEY_SECRET_ID
    ? 'CLOUDOPS_KEY_SECRET_ID (the secret holding the key)'
    : 'CLOUDOPS_KEY_ID and CLOUDOPS_KEY_SECRET';
}

export function tokenSettings(
  config: Pick<ConnectionEnv, 'CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID'>,
): string {
  return config.CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID
    ? 'CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID (the secret holding the token)'
    : 'CLOUDOPS_OBSERVABILITY_TOKEN';
}

/**
 * Whether the management API is set up at all. Managed mode needs it for everything; open-source
 * mode only for pipes and keys, so there a setup without it is complete for dashboards.
 */
export function managementConfigured(config: ConnectionEnv): boolean {
  return (
    config.CLOUDOPS_OBSERVABILITY_MODE === 'managed' ||
    [config.CLOUDOPS_API_URL, config.CLOUDOPS_KEY_ID, config.CLOUDOPS_KEY_SECRET_ID].some(Boolean)
  );
}

function missingSettings(config: ConnectionEnv): string[] {
  const missing: string[] = [];
  if (managementConfigured(config)) {
    if (!config.CLOUDOPS_API_URL) missing.push('CLOUDOPS_API_URL');
    if (!config.CLOUDOPS_KEY_SECRET_ID) {
      for (const name of [
        'CLOUDOPS_KEY_ID',
        'CLOUDOPS_KEY_SECRET',
        'CLOUDOPS_ORGANIZATION_ID',
      ] as const)
        if (!config[name]) missing.push(name);
    }
  }
  if (config.CLOUDOPS_OBSERVABILITY_MODE === 'managed') {
    if (!config.CLOUDOPS_SERVICE_ID?.length) missing.push('CLOUDOPS_SERVICE_ID');
  } else {
    if (!config.CLOUDOPS_OBSERVABILITY_URL) missing.push('CLOUDOPS_OBSERVABILITY_URL');
    if (!config.CLOUDOPS_OBSERVABILITY_TOKEN && !config.CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID)
      missing.push('CLOUDOPS_OBSERVABILITY_TOKEN (or CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID)');
  }
  return missing;
}

/** Settings every later check needs, missing ones named together (no call is made without them). */
export function settingsCheck(config: ConnectionEnv): Check {
  const mode = config.CLOUDOPS_OBSERVABILITY_MODE;
  const missing = missingSettings(config);
  if (missing.length > 0) {
    const byValue = missing.some((m) => m.startsWith('CLOUDOPS_KEY'));
    return {
      name: 'settings',
      status: 'fail',
      detail: `missing for ${mode} mode: ${missing.join(', ')}`,
      fix: `set ${missing.join(', ')}${byValue ? ' (or the key by secret: CLOUDOPS_KEY_SECRET_ID)' : ''}`,
      setup: true,
    };
  }
  const where =
    mode === 'managed'
      ? `dashboards and alerts through the management API for ${config.CLOUDOPS_SERVICE_ID!.length} service(s)`
      : `dashboards and alerts through ${config.CLOUDOPS_OBSERVABILITY_URL}/api/v2`;
  if (!managementConfigured(config))
    return {
      name: 'settings',
      status: 'warn',
      detail: `${mode} mode: ${where}; no management API (pipes and keys need it)`,
      fix: 'for pipes and keys: set CLOUDOPS_API_URL and a key (CLOUDOPS_KEY_ID + CLOUDOPS_KEY_SECRET + CLOUDOPS_ORGANIZATION_ID, or CLOUDOPS_KEY_SECRET_ID)',
    };
  const key = config.CLOUDOPS_KEY_SECRET_ID
    ? 'from Secrets Manager (CLOUDOPS_KEY_SECRET_ID)'
    : 'from CLOUDOPS_KEY_ID';
  return { name: 'settings', status: 'ok', detail: `${mode} mode: ${where}; key ${key}` };
}

const day = (iso: string) => iso.slice(0, 10);

/**
 * Which key the service knows us as, and when it expires (no who-am-I call: by suffix); a key
 * expiring in fewer than `warnDays` days (CLOUDOPS_KEY_EXPIRY_WARN_DAYS, as the sentinel) warns.
 */
export function keyCheck(
  records: readonly KeyRecord[],
  key: { keyId: string; keyRecordId?: string | undefined },
  at: { now: number; warnDays: number },
  apiUrl: string,
): Check {
  const name = 'management API';
  const suffix = keySuffixOf(key.keyId);
  const record = findKeyRecord(records, key);
  if (!record) {
    const same = records.filter((r) => r.keySuffix === suffix).length;
    return {
      name,
      status: 'warn',
      detail:
        `${apiUrl}: the key …${suffix} authenticates, but ${same === 0 ? 'no key' : `${same} keys`} ` +
        `in the organization's list end in …${suffix}, so its expiry is unknown`,
    };
  }
  const who = `key …${suffix} ("${record.name}"${record.state ? `, ${record.state}` : ''})`;
  if (!record.expireAt) {
    return {
      name,
      status: 'warn',
      detail: `${apiUrl}: authenticates as ${who}, which never expires`,
      fix: '`cloudops keys rotate` gives the key an expiry (CLOUDOPS_KEY_LIFETIME)',
    };
  }
  const daysLeft = Math.floor((Date.parse(record.expireAt) - at.now) / UNIT_MS.d);
  const expiry = `expires ${day(record.expireAt)} (in ${daysLeft} day${daysLeft === 1 ? '' : 's'})`;
  return daysLeft < at.warnDays
    ? {
        name,
        status: 'warn',
        detail: `${apiUrl}: authenticates as ${who}, ${expiry}`,
        fix: 'rotate it now: `cloudops keys rotate`',
      }
    : { name, status: 'ok', detail: `${apiUrl}: authenticates as ${who}, ${expiry}` };
}

/** What DescribeSecret says of one secret, as the SDK gives it. */
export type SecretDescription = Pick<
  DescribeSecretCommandOutput,
  'RotationEnabled' | 'RotationRules' | 'LastRotatedDate' | 'NextRotationDate' | 'LastChangedDate'
>;

/** A secret's rotation: the key's should rotate; the token cannot (no API makes tokens). */
export function secretCheck(
  setting: string,
  secretId: string,
  described: SecretDescription,
  kind: 'key' | 'token',
): Check {
  const name = `secret ${setting}`;
  const iso = (d: Date | undefined) => (d ? day(d.toISOString()) : 'never');
  if (!described.RotationEnabled) {
    return kind === 'key'
      ? {
          name,
          status: 'warn',
          detail: `${secretId}: rotation is not enabled; last changed ${iso(described.LastChangedDate)}`,
          fix: 'deploy the stack (it enables rotation) or rotate by hand: `cloudops keys rotate`',
        }
      : {
          name,
          status: 'ok',
          detail: `${secretId}: no rotation (tokens are replaced by hand); last changed ${iso(described.LastChangedDate)}`,
        };
  }
  const rules = described.RotationRules;
  const every = rules?.AutomaticallyAfterDays
    ? ` every ${rules.AutomaticallyAfterDays} days`
    : rules?.ScheduleExpression
      ? ` on ${rules.ScheduleExpression}`
      : '';
  return {
    name,
    status: 'ok',
    detail:
      `${secretId}: rotation enabled${every}; last rotated ${iso(described.LastRotatedDate)}, ` +
      `next ${iso(described.NextRotationDate)}`,
  };
}

/** `RateLimit-*` / `X-RateLimit-*` headers of the latest answer, when the service sent any. */
export interface RateHeaders {
  limit?: string;
  remaining?: string;
  reset?: string;
}

/** The budget left for one credential: what the service said, else what our limiter counted. */
export function rateLimitCheck(
  api: string,
  used: number,
  config: { limit: number; windowMs: number },
  headers: RateHeaders | undefined,
): Check {
  const window = `${config.windowMs / 1000} s`;
  if (headers?.remaining !== undefined) {
    const reset = headers.reset !== undefined ? `, the window resets in ${headers.reset} s` : '';
    return {
      name: `rate limit (${api})`,
      status: 'ok',
      detail: `${headers.remaining} of ${headers.limit ?? '?'} requests left${reset} (the service's RateLimit headers)`,
    };
  }
  return {
    name: `rate limit (${api})`,
    status: 'ok',
    detail:
      `this run used ${used} of ${config.limit} requests per ${window} (the client keeps to that limit); ` +
      `the service states no budget unless it answers 429`,
  };
}
