/**
 * The stack's settings: `cloudops:*` keys from cdk.json `context` (or `-c key=value`), each one
 * overridable by an env var (CLOUDOPS_CDK_<KEY>, e.g. CLOUDOPS_CDK_API_URL for cloudops:apiUrl).
 * Values from `-c` and env are always strings, so every field also accepts its string form.
 * A bad or missing value fails synth with one line per key, naming it (never its value).
 */
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import {
  LOG_LEVELS,
  managementBaseUrl,
  observabilityBaseUrl,
  VAR_ENV_PREFIX,
  observabilityMode,
  type DeployLogLevel,
  type ObservabilityMode,
} from '../lib/config';
import { SECRET_COMPLETE_ARN, SECRET_NAME } from '../lib/dashboards/secret-reference';
import { ConfigError } from '../lib/errors';
import { requestSource } from '../lib/events/trust';
import { watchdogEnv } from '../lib/pipes/config';
import { MAX_KEY_LIFETIME_MS } from '../lib/keys/config';
import { durationUpTo, formatDuration } from '../lib/keys/duration';
import { uuid } from '../lib/schemas/common';
import { ROUTABLE_DESTINATIONS, type NotifierName } from '../lib/watch/notifiers/registry';
import { pathText, routeTable, unknownNames, type RouteTable } from '../lib/watch/routes';
import { UNIT_MS } from '../lib/duration';

const flag = z.union([
  z.boolean(),
  z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
]);
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
/** A list: a JSON array, or (from -c and env) a comma-separated string; blanks dropped. */
const listOf = <T extends z.ZodType<unknown, string[]>>(items: T) =>
  z
    .union([
      z.array(z.string()),
      z.string().transform((text) => text.split(',').map((part) => part.trim())),
    ])
    .transform((parts) => parts.filter(Boolean))
    .pipe(items);
const uuidList = listOf(z.array(uuid).min(1, 'expected at least one service id'));
const RATE = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/;
const MINUTES_PER = { minute: 1, hour: 60, day: 1440 } as const;
/** A year: a schedule rarer than that is a typo, not a schedule. */
const MAX_RATE_MINUTES = 365 * 1440;

/** `rate(5 minutes)` -> 5; cron -> undefined. */
export function rateMinutes(expression: string): number | undefined {
  const match = RATE.exec(expression);
  if (!match) return undefined;
  const unit = match[2].replace(/s$/, '') as keyof typeof MINUTES_PER;
  return Number(match[1]) * MINUTES_PER[unit];
}

/**
 * EventBridge Scheduler expressions (rate or cron); `at(...)` one-shots make no sense here. A
 * rate runs every 1 minute at the most (cron cannot go below that), every `maxMinutes` at the
 * least.
 */
const scheduleExpression = (maxMinutes = MAX_RATE_MINUTES) =>
  z
    .string()
    .regex(
      /^(rate\(\d+ (minute|minutes|hour|hours|day|days)\)|cron\(\S+( \S+){5}\))$/,
      'expected rate(<n> minutes|hours|days) or cron(<6 fields>)',
    )
    .refine(
      (expression) => {
        const minutes = rateMinutes(expression);
        return minutes === undefined || (minutes >= 1 && minutes <= maxMinutes);
      },
      `expected a rate from 1 minute to ${formatDuration(maxMinutes * 60_000)}`,
    );
/**
 * The watchdog's "not running" alarm looks back three runs within CloudWatch's one-day window:
 * a rarer watchdog would alarm between its own runs.
 */
const MAX_WATCHDOG_RATE_MINUTES = 8 * 60;
const keyDuration = durationUpTo(MAX_KEY_LIFETIME_MS);
/** CloudWatch Logs accepts only these retention periods. */
const RETENTION_DAYS = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288,
  3653,
] as const;
const retentionDays = z.coerce
  .number()
  .refine((days) => (RETENTION_DAYS as readonly number[]).includes(days), {
    message: `expected one of ${RETENTION_DAYS.join(', ')}`,
  });
/** A folder to upload at deploy, relative to where `cdk` runs (the repo root, beside cdk.json). */
const folder = z.string().refine((dir) => {
  try {
    return statSync(path.resolve(dir)).isDirectory();
  } catch {
    return false;
  }
}, 'expected an existing folder (relative to where cdk runs, e.g. my-dashboards)');
const s3Prefix = z
  .string()
  .regex(
    /^([A-Za-z0-9!_.*'()-]+\/)+$/,
    'expected an S3 key prefix ending in / such as dashboards/ or team-a/dashboards/',
  );
/** `${NAME}` values of the deployed sync: an object, or (from -c and env) its JSON text. */
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const dashboardVars = z
  .unknown()
  .transform((value, ctx) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      ctx.addIssue({
        code: 'custom',
        message: 'expected a JSON object such as {"WEBHOOK_ID":"..."}',
      });
      return z.NEVER;
    }
  })
  .pipe(
    z
      .record(z.string(), z.string('expected every value to be a string'), {
        error: 'expected a JSON object of NAME: "value" strings',
      })
      .superRefine((vars, ctx) => {
        for (const name of Object.keys(vars).filter((n) => !VAR_NAME.test(n)))
          ctx.addIssue({
            code: 'custom',
            message: `expected variable names such as WEBHOOK_ID, not "${name}"`,
          });
      }),
  );
/**
 * The watchdog's tunables a deployment sets: context key -> the watchdog's own env variable,
 * whose schema (lib/pipes/config.ts) checks the value at synth. The stack sets the others itself
 * (table, queue, topic, bus, secret names); the URL and signing-secret values are CLI-only.
 */
export const WATCHDOG_CONTEXT_KEYS = {
  'cloudops:watchdogLinkTemplate': 'CLOUDOPS_WATCHDOG_LINK_TEMPLATE',
  'cloudops:watchdogIncludePipes': 'CLOUDOPS_WATCHDOG_INCLUDE_PIPES',
  'cloudops:watchdogExcludePipes': 'CLOUDOPS_WATCHDOG_EXCLUDE_PIPES',
  'cloudops:watchdogExpectedStopped': 'CLOUDOPS_WATCHDOG_EXPECTED_STOPPED',
  'cloudops:watchdogStuckMinutes': 'CLOUDOPS_WATCHDOG_STUCK_MINUTES',
  'cloudops:watchdogReminderMinutes': 'CLOUDOPS_WATCHDOG_REMINDER_MINUTES',
  'cloudops:watchdogFlapMaxChanges': 'CLOUDOPS_WATCHDOG_FLAP_MAX_CHANGES',
  'cloudops:watchdogFlapWindowMinutes': 'CLOUDOPS_WATCHDOG_FLAP_WINDOW_MINUTES',
  'cloudops:watchdogFlapStableMinutes': 'CLOUDOPS_WATCHDOG_FLAP_STABLE_MINUTES',
  'cloudops:watchdogAnnounceNew': 'CLOUDOPS_WATCHDOG_ANNOUNCE_NEW',
  'cloudops:watchdogSelfWatchFailures': 'CLOUDOPS_WATCHDOG_SELF_WATCH_FAILURES',
  'cloudops:watchdogAutoRestart': 'CLOUDOPS_WATCHDOG_AUTO_RESTART',
  'cloudops:watchdogAutoRestartMax': 'CLOUDOPS_WATCHDOG_AUTO_RESTART_MAX',
  'cloudops:watchdogAutoRestartWindowMinutes': 'CLOUDOPS_WATCHDOG_AUTO_RESTART_WINDOW_MINUTES',
  'cloudops:watchdogStallMinutes': 'CLOUDOPS_WATCHDOG_STALL_MINUTES',
  'cloudops:watchdogExpectTraffic': 'CLOUDOPS_WATCHDOG_EXPECT_TRAFFIC',
  'cloudops:watchdogErrorsPerRun': 'CLOUDOPS_WATCHDOG_ERRORS_PER_RUN',
  'cloudops:watchdogApiDeadlineMs': 'CLOUDOPS_WATCHDOG_API_DEADLINE_MS',
  'cloudops:watchdogServicesPerMessage': 'CLOUDOPS_WATCHDOG_SERVICES_PER_MESSAGE',
  'cloudops:watchdogPagerDutyUrl': 'CLOUDOPS_WATCHDOG_PAGERDUTY_URL',
} as const satisfies Record<string, keyof typeof watchdogEnv.shape>;
type WatchdogContextKey = keyof typeof WATCHDOG_CONTEXT_KEYS;

/** A watchdog tunable: its env text (lists joined), checked by the watchdog's own schema. */
function watchdogSetting(envName: keyof typeof watchdogEnv.shape) {
  return z
    .union([z.string(), z.number(), z.boolean(), z.array(z.string())])
    .transform((value) => (Array.isArray(value) ? value.join(',') : String(value)))
    .superRefine((text, ctx) => {
      const checked = watchdogEnv.shape[envName].safeParse(text);
      if (!checked.success)
        for (const issue of checked.error.issues)
          ctx.addIssue({ code: 'custom', message: issue.message });
    });
}
const watchdogSettings = Object.fromEntries(
  Object.entries(WATCHDOG_CONTEXT_KEYS).map(([key, envName]) => [
    key,
    watchdogSetting(envName).optional(),
  ]),
) as Record<WatchdogContextKey, z.ZodOptional<ReturnType<typeof watchdogSetting>>>;

const secretName = z.string().regex(SECRET_NAME, 'expected a Secrets Manager secret name');
/**
 * A secret the deployed sync may read for webhook files: its name, or its complete ARN (with the
 * `-xxxxxx` Secrets Manager appends: IAM matches the whole ARN, so a grant on one without it
 * deploys and then every read is denied).
 */
const secretNameOrArn = z
  .string()
  .refine(
    (id) => SECRET_NAME.test(id) || SECRET_COMPLETE_ARN.test(id),
    'expected Secrets Manager secret names or complete ARNs (ending in the -xxxxxx Secrets Manager appends to the name)',
  );

/** Lambda holds 4 KB of environment in all: the table must leave room for the rest. */
const MAX_ROUTES_JSON = 2048;
/**
 * The routing table (lib/watch/routes.ts): an object, or (from -c and env) its JSON text. Each
 * issue names its field; a route's own destination must be a secret name (a value would be
 * written into the template).
 */
const watchdogRoutes = z.unknown().transform((value, ctx): RouteTable => {
  let table: unknown = value;
  if (typeof value === 'string') {
    try {
      table = JSON.parse(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'expected a JSON routing table' });
      return z.NEVER;
    }
  }
  const parsed = routeTable.safeParse(table);
  const issues = parsed.success
    ? parsed.data.routes.flatMap((route, i) =>
        Object.entries(route.destinations)
          .filter(([, destination]) => !('secretId' in destination))
          .map(
            ([notifier]) =>
              `routes[${i}].destinations.${notifier}: expected { "secretId": "<secret name>" } (a value would be stored in the template)`,
          ),
      )
    : parsed.error.issues.map((issue) => `${pathText(issue.path) || '(root)'}: ${issue.message}`);
  for (const message of issues) ctx.addIssue({ code: 'custom', message });
  if (parsed.success && JSON.stringify(parsed.data).length > MAX_ROUTES_JSON)
    ctx.addIssue({
      code: 'custom',
      message: `at most ${MAX_ROUTES_JSON} characters as JSON (a function's environment holds 4 KB in all)`,
    });
  return parsed.success ? parsed.data : z.NEVER;
});

/** Every context key, with its default when it has one. */
export const stackConfigSchema = z
  .object({
    'cloudops:apiUrl': managementBaseUrl,
    'cloudops:observabilityUrl': observabilityBaseUrl,
    'cloudops:observabilityMode': z._default(observabilityMode, 'managed'),
    'cloudops:organizationId': uuid,
    'cloudops:serviceIds': uuidList,
    'cloudops:dashboardsOwner': z
      .string()
      .regex(/^[A-Za-z0-9._-]{1,23}$/, 'expected 1-23 letters, digits, dot, dash or underscore')
      .optional(),
    'cloudops:reservedConcurrency': flag.default(true),
    'cloudops:rotationDays': int(1, 365).default(30),
    'cloudops:keyLifetime': z._default(keyDuration, 90 * UNIT_MS.d),
    'cloudops:keyGracePeriod': z._default(keyDuration, UNIT_MS.d),
    'cloudops:keyExpiryWarnDays': int(1, 365).default(7),
    'cloudops:adminSecret': flag.default(false),
    'cloudops:slackWebhookSecretName': secretName.optional(),
    'cloudops:webhookSecretName': secretName.optional(),
    'cloudops:pagerdutySecretName': secretName.optional(),
    'cloudops:watchdogRoutes': watchdogRoutes.optional(),
    'cloudops:watchdogSchedule':
      scheduleExpression(MAX_WATCHDOG_RATE_MINUTES).default('rate(5 minutes)'),
    'cloudops:driftSyncSchedule': scheduleExpression().default('rate(1 hour)'),
    'cloudops:keySentinelSchedule': scheduleExpression().default('rate(1 day)'),
    'cloudops:dashboardsScheduleMode': z.enum(['repair', 'report']).default('repair'),
    'cloudops:dashboardsPrune': flag.default(false),
    'cloudops:dashboardsDir': folder.optional(),
    'cloudops:dashboardsPrefix': s3Prefix.default('dashboards/'),
    'cloudops:dashboardVars': dashboardVars.default({}),
    'cloudops:dashboardWebhookSecrets': listOf(z.array(secretNameOrArn)).default([]),
    'cloudops:logRetentionDays': retentionDays.default(30),
    'cloudops:logLevel': z.enum(LOG_LEVELS).default('info'),
    'cloudops:alertRequestSources': listOf(z.array(requestSource)).default([]),
    ...watchdogSettings,
  })
  .superRefine((c, ctx) => {
    const routes = c['cloudops:watchdogRoutes'];
    if (routes) {
      // The notifiers the stack configures: its own two, and each whose secret is named.
      const configured = ['sns', 'eventbridge', ...Object.keys(notifierSecretNames(c))];
      for (const message of unknownNames(routes, configured, ROUTABLE_DESTINATIONS))
        ctx.addIssue({ code: 'custom', path: ['cloudops:watchdogRoutes'], message });
    }
    const lifetime = c['cloudops:keyLifetime'];
    const rotation = c['cloudops:rotationDays'] * UNIT_MS.d;
    // The current key must outlive the next rotation plus the grace its successor gives it.
    const needed = rotation + c['cloudops:keyGracePeriod'];
    if (lifetime <= needed) {
      ctx.addIssue({
        code: 'custom',
        path: ['cloudops:keyLifetime'],
        message:
          `must be longer than cloudops:rotationDays plus cloudops:keyGracePeriod ` +
          `(${formatDuration(needed)}) and at most ${formatDuration(MAX_KEY_LIFETIME_MS)}`,
      });
    }
    // A key has lifetime - rotation left at its oldest: a wider warning window warns every cycle.
    const quietDays = Math.ceil((lifetime - rotation) / UNIT_MS.d);
    if (lifetime > needed && c['cloudops:keyExpiryWarnDays'] >= quietDays) {
      ctx.addIssue({
        code: 'custom',
        path: ['cloudops:keyExpiryWarnDays'],
        message: `expected 1 to ${quietDays - 1} (days a key has left at its oldest: keyLifetime - rotationDays)`,
      });
    }
  });

type Parsed = z.output<typeof stackConfigSchema>;

type NotifierSecretNames = Partial<Record<NotifierName, string>>;

/** The notifiers' secrets as the context names them: the check of the routes and the stack use it. */
function notifierSecretNames(
  c: Pick<
    Parsed,
    | 'cloudops:slackWebhookSecretName'
    | 'cloudops:webhookSecretName'
    | 'cloudops:pagerdutySecretName'
  >,
): NotifierSecretNames {
  const names: NotifierSecretNames = {
    slack: c['cloudops:slackWebhookSecretName'],
    webhook: c['cloudops:webhookSecretName'],
    pagerduty: c['cloudops:pagerdutySecretName'],
  };
  return Object.fromEntries(Object.entries(names).filter(([, name]) => name));
}

/** The typed props the constructs take (names without the `cloudops:` prefix). */
export interface StackConfig {
  apiUrl: string;
  observabilityUrl: string;
  observabilityMode: ObservabilityMode;
  organizationId: string;
  serviceIds: string[];
  /** @default derived from the stack name (see dashboardsOwnerFor) */
  dashboardsOwner?: string | undefined;
  /** Reserve concurrency 1 for the sync and the watchdog (needs account quota, cdk/README.md). */
  reservedConcurrency: boolean;
  rotationDays: number;
  keyLifetimeMs: number;
  keyGracePeriodMs: number;
  keyExpiryWarnDays: number;
  adminSecret: boolean;
  /** The secret each notifier that reads one is given; a notifier not named is not configured. */
  notifierSecretNames: NotifierSecretNames;
  /** Routing per team (lib/watch/routes.ts); its own destinations are secret names. */
  watchdogRoutes?: RouteTable | undefined;
  watchdogSchedule: string;
  driftSyncSchedule: string;
  keySentinelSchedule: string;
  dashboardsScheduleMode: 'repair' | 'report';
  dashboardsPrune: boolean;
  /** A local folder uploaded to the dashboards prefix at every deploy; unset: nothing is uploaded. */
  dashboardsDir?: string | undefined;
  /** Where in the stack's bucket the sync reads dashboard files. */
  dashboardsPrefix: string;
  /** `${NAME}` values of the deployed sync (CLOUDOPS_VAR_NAME). */
  dashboardVars: Record<string, string>;
  /** The secrets (names or ARNs) webhook files may reference: the sync may read these only. */
  dashboardWebhookSecrets: string[];
  logRetentionDays: number;
  logLevel: DeployLogLevel;
  /** Event sources whose alert requests are provisioned (none: requests are refused). */
  alertRequestSources: string[];
  /** The watchdog's tunables as its env (CLOUDOPS_WATCHDOG_*), only those set. */
  watchdogTuning: Record<string, string>;
}

export const CONTEXT_KEYS = Object.keys(stackConfigSchema.shape) as (keyof Parsed)[];

/** `cloudops:apiUrl` -> `CLOUDOPS_CDK_API_URL`. */
export function envNameFor(key: string): string {
  const name = key.replace(/^cloudops:/, '').replace(/([a-z0-9])([A-Z])/g, '$1_$2');
  return `CLOUDOPS_CDK_${name.toUpperCase()}`;
}

/**
 * Read and validate the settings. `context` looks a key up (app.node.tryGetContext);
 * `env` holds the CLOUDOPS_CDK_* overrides (empty strings count as unset).
 */
export function readStackConfig(
  context: (key: string) => unknown,
  env: Record<string, string | undefined> = {},
): StackConfig {
  const raw: Record<string, unknown> = {};
  for (const key of CONTEXT_KEYS) {
    const fromEnv = env[envNameFor(key)];
    const value = fromEnv !== undefined && fromEnv !== '' ? fromEnv : context(key);
    if (value !== undefined && value !== null && value !== '') raw[key] = value;
  }
  const parsed = stackConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const key = String(issue.path[0] ?? '');
      const where = `${key} (or env ${envNameFor(key)})`;
      // A default that a cross-check refuses is not "unset": say what is wrong with it.
      return raw[key] === undefined && issue.code === 'invalid_type'
        ? `${where}: required, not set`
        : `${where}: ${issue.message}`;
    });
    throw new ConfigError(
      `invalid cdk context (-c key=value, cdk.json "context", or a file named by ` +
        `CLOUDOPS_CDK_CONTEXT_FILE such as cdk/context.example.json):\n  ${lines.join('\n  ')}`,
    );
  }
  const c = parsed.data;
  return {
    apiUrl: c['cloudops:apiUrl'],
    observabilityUrl: c['cloudops:observabilityUrl'],
    observabilityMode: c['cloudops:observabilityMode'],
    organizationId: c['cloudops:organizationId'],
    serviceIds: c['cloudops:serviceIds'],
    dashboardsOwner: c['cloudops:dashboardsOwner'],
    reservedConcurrency: c['cloudops:reservedConcurrency'],
    rotationDays: c['cloudops:rotationDays'],
    keyLifetimeMs: c['cloudops:keyLifetime'],
    keyGracePeriodMs: c['cloudops:keyGracePeriod'],
    keyExpiryWarnDays: c['cloudops:keyExpiryWarnDays'],
    adminSecret: c['cloudops:adminSecret'],
    notifierSecretNames: notifierSecretNames(c),
    watchdogRoutes: c['cloudops:watchdogRoutes'],
    watchdogSchedule: c['cloudops:watchdogSchedule'],
    driftSyncSchedule: c['cloudops:driftSyncSchedule'],
    keySentinelSchedule: c['cloudops:keySentinelSchedule'],
    dashboardsScheduleMode: c['cloudops:dashboardsScheduleMode'],
    dashboardsPrune: c['cloudops:dashboardsPrune'],
    dashboardsDir: c['cloudops:dashboardsDir'],
    dashboardsPrefix: c['cloudops:dashboardsPrefix'],
    dashboardVars: c['cloudops:dashboardVars'],
    dashboardWebhookSecrets: c['cloudops:dashboardWebhookSecrets'],
    logRetentionDays: c['cloudops:logRetentionDays'],
    logLevel: c['cloudops:logLevel'],
    alertRequestSources: c['cloudops:alertRequestSources'],
    watchdogTuning: Object.fromEntries(
      Object.entries(WATCHDOG_CONTEXT_KEYS).flatMap(([key, envName]) => {
        const value = c[key as WatchdogContextKey];
        return value === undefined ? [] : [[envName, value]];
      }),
    ),
  };
}

/** The sync's env for its `${NAME}` variables (what lib/config.ts varsFromEnv reads back). */
export function dashboardVarsEnv(vars: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(vars).map(([name, value]) => [`${VAR_ENV_PREFIX}${name}`, value]),
  );
}

/**
 * The dashboard owner of a deployment when `cloudops:dashboardsOwner` is unset: the stack name
 * (unique per account and region), shortened with a hash when it is longer than an owner may be.
 */
export function dashboardsOwnerFor(stackName: string): string {
  const safe = stackName.replace(/[^A-Za-z0-9._-]/g, '-');
  if (safe.length <= 23 && safe === stackName) return safe;
  const hash = createHash('sha256').update(stackName, 'utf8').digest('hex').slice(0, 8);
  return `${safe.slice(0, 14)}-${hash}`;
}
