import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { silentLogger, type Logger } from '../log';
import { parseCurrent } from './secret';
import { AWSCURRENT, SecretVersions } from './stages';

export type KeyExpiryStatus = 'ok' | 'expiring' | 'expired' | 'no-expiry';

/** What the sentinel found; never carries a key secret. */
export interface KeyExpiryNotice {
  secretId: string;
  status: KeyExpiryStatus;
  /** ISO time the AWSCURRENT key expires, or null (never). */
  expireAt: string | null;
  /** Days left (negative once expired); null when the key never expires. */
  daysLeft: number | null;
  keySuffix: string;
  message: string;
}

/**
 * The smallest notifier the sentinel needs. lib/notify's Notifier is typed to pipe
 * notifications; an adapter can forward these through it.
 */
export interface KeyExpiryNotifier {
  send(notice: KeyExpiryNotice): Promise<void>;
}

export interface KeyExpiryCheckOptions {
  secrets: SecretsManagerClient;
  secretId: string;
  warnDays: number;
  /** Epoch milliseconds. */
  now: () => number;
  notifier?: KeyExpiryNotifier;
  logger?: Logger;
}

const DAY_MS = 86_400_000;

/**
 * Warn when the AWSCURRENT key expires within `warnDays` (rotation is stuck: a working rotator
 * replaces it long before), has expired, or never expires. Notifies only when not ok.
 */
export async function checkKeyExpiry(options: KeyExpiryCheckOptions): Promise<KeyExpiryNotice> {
  const { secretId } = options;
  const versions = new SecretVersions(options.secrets, secretId);
  const current = parseCurrent(secretId, await versions.read(AWSCURRENT));
  const keySuffix = current.keyId.slice(-4);
  const expireAt = current.expireAt;
  let notice: KeyExpiryNotice;
  if (expireAt === null) {
    notice = {
      secretId,
      status: 'no-expiry',
      expireAt,
      daysLeft: null,
      keySuffix,
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
    notice = { secretId, status, expireAt, daysLeft: rounded, keySuffix, message };
  }
  const log = options.logger ?? silentLogger;
  if (notice.status === 'ok') {
    log.info('key expiry ok', { secretId, expireAt: notice.expireAt, daysLeft: notice.daysLeft });
    return notice;
  }
  log.warn(notice.message, { secretId, status: notice.status });
  await options.notifier?.send(notice);
  return notice;
}
