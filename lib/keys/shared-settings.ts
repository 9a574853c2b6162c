/**
 * The two rotation settings the key sentinel reads too: whose keys are the rotator's, and how
 * near an expiry is overdue. Apart from config.ts so the sentinel bundles neither the rotator's
 * other settings nor their parsers; both read them through these same schemas.
 */
import * as z from 'zod/mini';
import { coercedNumber } from '../schemas/builders';

/** Start of the name of every key the rotator makes (CLOUDOPS_KEY_NAME_PREFIX). */
export const keyNamePrefix = z.lazy(() =>
  z._default(
    z
      .string()
      .check(
        z.regex(/^[A-Za-z0-9._-]{1,40}$/, 'expected 1-40 letters, digits, dot, dash or underscore'),
      ),
    'cloudops-rotated-',
  ),
);

/** A key of ours expiring within this many days is overdue (CLOUDOPS_KEY_EXPIRY_WARN_DAYS). */
export const keyExpiryWarnDays = z.lazy(() =>
  z._default(coercedNumber().check(z.positive(), z.lte(365)), 7),
);
