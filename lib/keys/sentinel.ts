import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { isForbidden, isUnauthorized } from '../api';
import { staticCredentials } from '../credentials';
import { silentLogger, type Logger } from '../log';
import { managementKeySecret } from '../schemas';
import { keyExpiryDedupKey, type KeyNotice } from '../watch/subjects/key';
import { findKeyRecord } from './ownership';
import type { RotationDeps } from './rotation';
import { parseCurrent } from './secret';
import { AWSCURRENT, SecretVersions } from './stages';

type KeyExpiryStatus = 'ok' | 'expiring' | 'expired' | 'no-expiry';

/** What the sentinel found about one key; never carries a key secret. */
export interface KeyExpiryCheck {
  secretId: string;
  status: KeyExpiryStatus;
  /** ISO time the AWSCURRENT key expires, or null (never). */
  expireAt: string | null;
  /** Days left (negative once expired); null when the key never expires. */
  daysLeft: number | null;
  keySuffix: string;
  /** Where expireAt was read: the key's record on the service (the truth) or the secret value. */
  source: 'key-record' | 'secret-value';
  message: string;
}

interface KeyExpiryCheckOptions {
  secrets: SecretsManagerClient;
  secretId: string;
  warnDays: number;
  /** Epoch milliseconds. */
  now: () => number;
  logger?: Logger;
  /**
   * Reads the key's record from the service, whose expireAt is the one the service enforces
   * (a cut that happened after the value was written shows only there). Without it, or when
   * the key may not list keys (403) and no admin secret is set, the secret value's is used.
   */
  connect?: RotationDeps['connect'];
  /** Secret of an admin key that lists keys when the checked key may not. */
  adminSecretId?: string | undefined;
}

const DAY_MS = 86_400_000;

/**
 * Whether the AWSCURRENT key expires within `warnDays` (rotation is stuck: a working rotator
 * replaces it long before), has expired, or never expires.
 */
export async function checkKeyExpiry(options: KeyExpiryCheckOptions): Promise<KeyExpiryCheck> {
  const { secretId } = options;
  const versions = new SecretVersions(options.secrets, secretId);
  const current = parseCurrent(secretId, await versions.read(AWSCURRENT));
  const keySuffix = current.keyId.slice(-4);
  const log = options.logger ?? silentLogger;
  const fromRecord = await recordExpiry(options, current, log);
  if (fromRecord === REFUSED)
    return reported(log, {
      secretId,
      status: 'expired',
      expireAt: current.expireAt,
      daysLeft: 0,
      keySuffix,
      source: 'key-record',
      message: `The key in ${secretId} (…${keySuffix}) is refused by the service (401): it has expired or was removed`,
    });
  const source = fromRecord === undefined ? 'secret-value' : 'key-record';
  const expireAt = fromRecord === undefined ? current.expireAt : fromRecord;
  let check: KeyExpiryCheck;
  if (expireAt === null) {
    check = {
      secretId,
      status: 'no-expiry',
      expireAt,
      daysLeft: null,
      keySuffix,
      source,
      message: `The key in ${secretId} (…${keySuffix}) never expires: rotation has not run yet`,
    };
  } else {
    const daysLeft = (Date.parse(expireAt) - options.now()) / DAY_MS;
    const rounded = Math.round(daysLeft * 10) / 10;
    const status: KeyExpiryStatus =
      daysLeft <= 0 ? 'expired' : daysLeft <= options.warnDays ? 'expiring' : 'ok';
    const message =
      status === 'ok'
        ? `The key in ${secretId} (…${keySuffix}) expires ${expireAt}, in ${rounded} days`
        : status === 'expired'
          ? `The key in ${secretId} (…${keySuffix}) expired at ${expireAt}: rotation is stuck`
          : `The key in ${secretId} (…${keySuffix}) expires ${expireAt}, in ${rounded} days (warning at ${options.warnDays}): rotation is stuck`;
    check = { secretId, status, expireAt, daysLeft: rounded, keySuffix, source, message };
  }
  return reported(log, check);
}

function reported(log: Logger, check: KeyExpiryCheck): KeyExpiryCheck {
  const { secretId, status } = check;
  if (status === 'ok')
    log.info('key expiry ok', { secretId, expireAt: check.expireAt, daysLeft: check.daysLeft });
  else log.warn(check.message, { secretId, status });
  return check;
}

/** The service refused the checked key itself (401): past its expiry, or removed. */
const REFUSED = Symbol('refused');

/** The notice a check that is not ok gives (an expired key is critical); none when ok. */
export function keyExpiryNotice(check: KeyExpiryCheck, now: number): KeyNotice | undefined {
  if (check.status === 'ok') return undefined;
  const at = new Date(now).toISOString();
  return {
    ...check,
    status: check.status,
    subject: 'key',
    id: `${keyExpiryDedupKey(check.secretId)}/${check.status}/${now}`,
    dedupKey: keyExpiryDedupKey(check.secretId),
    resolves: false,
    kind: 'key-expiry',
    severity: check.status === 'expired' ? 'critical' : 'warning',
    from: '',
    to: check.status,
    at,
    since: at,
  };
}

/**
 * The expireAt of the key's record, undefined when it cannot be read (then the value's), or
 * REFUSED when the key, listing with itself, is no longer accepted.
 */
async function recordExpiry(
  options: KeyExpiryCheckOptions,
  current: ReturnType<typeof parseCurrent>,
  log: Logger,
): Promise<string | null | undefined | typeof REFUSED> {
  if (!options.connect) return undefined;
  const { secretId } = options;
  const lister =
    options.adminSecretId === undefined
      ? current
      : parseCurrent(
          options.adminSecretId,
          await new SecretVersions(options.secrets, options.adminSecretId).read(AWSCURRENT),
        );
  const label = `${options.adminSecretId ?? secretId}:AWSCURRENT`;
  const api = options.connect(staticCredentials(label, lister, managementKeySecret));
  try {
    const record = findKeyRecord(await api.listKeys(), current);
    if (record) return record.expireAt;
    log.warn('the AWSCURRENT key has no record on the service: using the secret value', {
      secretId,
    });
    return undefined;
  } catch (error) {
    if (isUnauthorized(error) && options.adminSecretId === undefined) return REFUSED;
    if (!isForbidden(error)) throw error;
    log.warn('the key may not list keys (403): expiry read from the secret value', { secretId });
    return undefined;
  } finally {
    api.close();
  }
}
