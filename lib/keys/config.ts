import * as z from 'zod/mini';
import { readEnv } from '../config';
import { UNIT_MS } from '../duration';
import { ConfigError } from '../errors';
import { uuid } from '../schemas/common';
import { durationUpTo } from './duration';
import { keyExpiryWarnDays, keyNamePrefix } from './shared-settings';

/**
 * Which call proves a new key works: `auto` (default: chosen from the key's roles), the key
 * list, the pipes of one service, or `authenticate` (the key list, where a 403 still proves
 * the service accepted the key).
 */
const testCall = z.lazy(() =>
  z.union([
    z.pipe(
      z.literal('auto'),
      z.transform(() => ({ kind: 'auto' as const })),
    ),
    z.pipe(
      z.literal('list-keys'),
      z.transform(() => ({ kind: 'list-keys' as const })),
    ),
    z.pipe(
      z.literal('authenticate'),
      z.transform(() => ({ kind: 'authenticate' as const })),
    ),
    z.pipe(
      z.pipe(
        z.pipe(
          z
            .string()
            .check(
              z.regex(
                /^list-pipes:/,
                'expected auto, list-keys, authenticate or list-pipes:<serviceId>',
              ),
            ),
          z.transform((text) => text.slice('list-pipes:'.length)),
        ),
        uuid,
      ),
      z.transform((serviceId) => ({ kind: 'list-pipes' as const, serviceId })),
    ),
  ]),
);
export type TestCall = z.output<typeof testCall>;

/**
 * The longest duration any setting may hold (100 years): `now + duration` stays a valid Date,
 * so a typo such as `99999999999d` fails where it is read, not as "Invalid time value" later.
 * Here, not in duration.ts, which the key sentinel bundles for formatDuration alone.
 */
export const MAX_DURATION_MS = 36_500 * UNIT_MS.d;

/** A duration setting with only the general bound (see MAX_DURATION_MS). */
export const duration = z.lazy(() => durationUpTo(MAX_DURATION_MS));

/**
 * The longest life a key the rotator makes may have: a key is a credential, and one that
 * outlives a year without rotation defeats the point of rotating it.
 */
export const MAX_KEY_LIFETIME_MS = 365 * UNIT_MS.d;
const keyDuration = z.lazy(() => durationUpTo(MAX_KEY_LIFETIME_MS));

/** The rotator's settings (env names are the deployment contract; values are validated). */
export const rotationEnv = z.object({
  CLOUDOPS_KEY_LIFETIME: z._default(keyDuration, 90 * UNIT_MS.d),
  CLOUDOPS_KEY_GRACE_PERIOD: z._default(keyDuration, UNIT_MS.d),
  CLOUDOPS_KEY_NAME_PREFIX: keyNamePrefix,
  CLOUDOPS_ROTATION_ADMIN_SECRET_ID: z.optional(z.string().check(z.minLength(1))),
  CLOUDOPS_ROTATION_TEST_CALL: z._default(testCall, { kind: 'auto' }),
  CLOUDOPS_KEY_EXPIRY_WARN_DAYS: keyExpiryWarnDays,
});

export interface RotationConfig {
  /** A new key expires this long after it is made. */
  readonly lifetimeMs: number;
  /** The previous key keeps working this long after the label moves. */
  readonly gracePeriodMs: number;
  /** Start of the name of every key the rotator makes. */
  readonly namePrefix: string;
  /** Secret holding a separate admin key used to manage keys (else: the current key). */
  readonly adminSecretId?: string | undefined;
  readonly testCall: TestCall;
}

interface SentinelConfig {
  readonly warnDays: number;
}

export const DEFAULT_ROTATION_CONFIG: RotationConfig = {
  lifetimeMs: 90 * UNIT_MS.d,
  gracePeriodMs: UNIT_MS.d,
  namePrefix: 'cloudops-rotated-',
  testCall: { kind: 'auto' },
};

/** Rotation settings from env (lib/config.ts reads it); errors name the variable. */
export function readRotationConfig(
  env?: Record<string, string | undefined>,
): RotationConfig & SentinelConfig {
  const parsed = readEnv(rotationEnv, env);
  if (parsed.CLOUDOPS_KEY_GRACE_PERIOD >= parsed.CLOUDOPS_KEY_LIFETIME) {
    // A grace as long as the lifetime would let the previous key outlive its successor's age.
    throw new ConfigError(
      'invalid configuration: CLOUDOPS_KEY_GRACE_PERIOD must be shorter than CLOUDOPS_KEY_LIFETIME',
    );
  }
  return {
    lifetimeMs: parsed.CLOUDOPS_KEY_LIFETIME,
    gracePeriodMs: parsed.CLOUDOPS_KEY_GRACE_PERIOD,
    namePrefix: parsed.CLOUDOPS_KEY_NAME_PREFIX,
    adminSecretId: parsed.CLOUDOPS_ROTATION_ADMIN_SECRET_ID,
    testCall: parsed.CLOUDOPS_ROTATION_TEST_CALL,
    warnDays: parsed.CLOUDOPS_KEY_EXPIRY_WARN_DAYS,
  };
}
