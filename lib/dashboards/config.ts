/** Settings of the sync-dashboards function (env, read through lib/config.ts). */
import * as z from 'zod/mini';
import { envFlag, envList, readEnv, varsFromEnv } from '../config';

/** The named variables (the CDK writes env typed by this shape, so a rename fails tsc there). */
export const syncDashboardsEnvShape = z.object({
  CLOUDOPS_DASHBOARDS_BUCKET: z.string().check(z.minLength(1)),
  CLOUDOPS_DASHBOARDS_PREFIX: z._default(z.string(), 'dashboards/'),
  CLOUDOPS_DASHBOARDS_SCHEDULE_MODE: z._default(z.enum(['repair', 'report']), 'repair'),
  CLOUDOPS_DASHBOARDS_PRUNE: z._default(envFlag, false),
  CLOUDOPS_DASHBOARDS_ADOPT: z._default(envFlag, false),
  /** With prune: a source declaring no dashboard may delete every owned one. */
  CLOUDOPS_DASHBOARDS_ALLOW_DELETE_ALL: z._default(envFlag, false),
  /**
   * Whose dashboards these are: each deployment owns its own (the stack sets one per stack),
   * so two deployments against one service never prune or adopt each other's.
   */
  CLOUDOPS_DASHBOARDS_OWNER: z._default(
    z
      .string()
      .check(
        z.regex(/^[A-Za-z0-9._-]{1,23}$/, 'expected 1-23 letters, digits, dot, dash or underscore'),
      ),
    'default',
  ),
  CLOUDOPS_EVENT_BUS_NAME: z._default(z.string().check(z.minLength(1)), 'default'),
  /**
   * provision-alerts' version table (read only): dashboards whose alerts it settled as declared
   * need no alert list on the schedule. Unset: every run with alerts lists them.
   */
  CLOUDOPS_ALERTS_VERSION_TABLE: z.optional(z.string().check(z.minLength(1))),
  /**
   * The manifest's key in the dashboards bucket (outside the prefix): what the last run saw in
   * sync, so a run reads only changed files. Unset: every run reads every file.
   */
  CLOUDOPS_DASHBOARDS_MANIFEST_KEY: z.optional(z.string().check(z.minLength(1))),
  /**
   * The secrets (names or ARNs, comma separated) webhook files may reference: the ones the
   * stack grants for them. Unset or empty: none (the role reads other secrets too).
   */
  CLOUDOPS_DASHBOARDS_WEBHOOK_SECRETS: z._default(envList, []),
});

const syncDashboardsEnv = z.lazy(() =>
  z.pipe(
    z.looseObject(syncDashboardsEnvShape.shape),
    z.transform((env) => ({
      bucket: env.CLOUDOPS_DASHBOARDS_BUCKET,
      prefix: env.CLOUDOPS_DASHBOARDS_PREFIX,
      /** On the schedule: `repair` applies drift away, `report` only logs (and tells) the plan. */
      scheduleMode: env.CLOUDOPS_DASHBOARDS_SCHEDULE_MODE,
      prune: env.CLOUDOPS_DASHBOARDS_PRUNE,
      adopt: env.CLOUDOPS_DASHBOARDS_ADOPT,
      allowDeleteAll: env.CLOUDOPS_DASHBOARDS_ALLOW_DELETE_ALL,
      owner: env.CLOUDOPS_DASHBOARDS_OWNER,
      eventBusName: env.CLOUDOPS_EVENT_BUS_NAME,
      alertVersionTable: env.CLOUDOPS_ALERTS_VERSION_TABLE,
      manifestKey: env.CLOUDOPS_DASHBOARDS_MANIFEST_KEY,
      webhookSecrets: env.CLOUDOPS_DASHBOARDS_WEBHOOK_SECRETS,
      // `${NAME}` in dashboard files comes from CLOUDOPS_VAR_NAME (e.g. the webhook id).
      vars: varsFromEnv(env),
    })),
  ),
);

/** The function's settings (the CDK writes the env that yields them). */
export type SyncDashboardsSettings = z.output<typeof syncDashboardsEnv>;

export function readSyncDashboardsSettings(
  env?: Record<string, string | undefined>,
): SyncDashboardsSettings {
  return readEnv(syncDashboardsEnv, env);
}
