/**
 * What a deployed bundle may leave out of the notifiers: the stack builds a function with only
 * the notifiers it binds there (cdk/constructs/notifications.ts `bundleDefines`), each part it
 * has no destination for switched off by an esbuild `define` of `globalThis.<switch>` to `true`.
 * registry.ts reads the switches where a part is reached, so esbuild drops that part's code.
 * Unbundled (the CLI, tests, the CDK app) no switch is set and every part is there.
 *
 * A variable of a part left out is refused, not ignored: set by hand on a function built
 * without it, it would otherwise notify no one.
 */
import * as z from 'zod/mini';

declare global {
  // the globals esbuild's define replaces in a deployed bundle
  var CLOUDOPS_WITHOUT_SLACK: boolean | undefined;
  var CLOUDOPS_WITHOUT_WEBHOOK: boolean | undefined;
  var CLOUDOPS_WITHOUT_PAGERDUTY: boolean | undefined;
  var CLOUDOPS_WITHOUT_ROUTES: boolean | undefined;
}

/** The global that switches each part off. */
const SWITCHES = {
  slack: 'CLOUDOPS_WITHOUT_SLACK',
  webhook: 'CLOUDOPS_WITHOUT_WEBHOOK',
  pagerduty: 'CLOUDOPS_WITHOUT_PAGERDUTY',
  routes: 'CLOUDOPS_WITHOUT_ROUTES',
} as const satisfies Record<string, keyof typeof globalThis>;
export type LeavablePart = keyof typeof SWITCHES;

/** The variables that configure each part: any of them set is a destination it would serve. */
const CONFIGURING_VARIABLES: Readonly<Record<LeavablePart, readonly string[]>> = {
  slack: ['CLOUDOPS_WATCHDOG_SLACK_SECRET_ID', 'CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL'],
  webhook: [
    'CLOUDOPS_WATCHDOG_WEBHOOK_SECRET_ID',
    'CLOUDOPS_WATCHDOG_WEBHOOK_URL',
    'CLOUDOPS_WATCHDOG_WEBHOOK_SIGNING_SECRET',
  ],
  // not its URL: the stack sets that tunable whether or not PagerDuty has a secret
  pagerduty: ['CLOUDOPS_WATCHDOG_PAGERDUTY_SECRET_ID', 'CLOUDOPS_WATCHDOG_PAGERDUTY_ROUTING_KEY'],
  routes: ['CLOUDOPS_WATCHDOG_ROUTES'],
};

/**
 * The esbuild `define` of a bundle that leaves `leftOut` out. Every switch is given (`false`
 * for a part kept), so no deployed bundle keeps the test of one.
 */
export function bundleDefinesLeaving(leftOut: readonly LeavablePart[]): Record<string, string> {
  return Object.fromEntries(
    (Object.keys(SWITCHES) as LeavablePart[]).map((part) => [
      `globalThis.${SWITCHES[part]}`,
      String(leftOut.includes(part)),
    ]),
  );
}

/** An env member that refuses its variable in a bundle built without `part`. */
export function refusal(part: LeavablePart) {
  const noun = part === 'routes' ? 'routing table' : `${part} notifier`;
  return z.optional(
    z.custom<never>(() => false, {
      error: `set, but this function was deployed without the ${noun}: configure it in the stack (cdk/README.md) and deploy again`,
    }),
  );
}

/**
 * Env members refusing each variable of `part` (typed as no member: a refused variable is
 * never in the parsed env).
 */
export function refusedVariables(part: LeavablePart): Record<never, z.ZodMiniType> {
  const refused = refusal(part);
  return Object.fromEntries(CONFIGURING_VARIABLES[part].map((name) => [name, refused]));
}
