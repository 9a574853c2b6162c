/**
 * The notifiers there are. The env reader and the CDK's Notifications construct both iterate
 * this list: a new notifier is one file in this folder and one line here (then one line in
 * the construct to give it its destination). With a routing table (CLOUDOPS_WATCHDOG_ROUTES),
 * routes add destinations of their own and each notifier takes only the notices routed to it.
 */
import * as z from 'zod/mini';
import { ConfigError } from '../../errors';
import { registerSecret } from '../../redact';
import type { Notice, RenderNotice } from '../notice';
import {
  destinationName,
  pathText,
  routeNotice,
  routeTableJson,
  unknownNames,
  type RouteTable,
} from '../routes';
import { eventBridgeNotifier } from './eventbridge';
import { pagerDutyNotifier } from './pagerduty';
import { refusal, refusedVariables } from './bundle-switches';
import { configuredOf, notifierEnvOf, type ConfiguredNotifier } from './set';
import { slackNotifier } from './slack';
import { snsNotifier } from './sns';
import type { Notifier, NotifierContext, SecretSource } from './types';
import { webhookNotifier } from './webhook';

export const NOTIFIERS = [
  snsNotifier,
  slackNotifier,
  webhookNotifier,
  pagerDutyNotifier,
  eventBridgeNotifier,
] as const;
export type NotifierName = (typeof NOTIFIERS)[number]['name'];

/**
 * The notifiers this bundle carries, in the registry's order: every one, unless the stack built
 * it without some (./bundle-switches.ts; each switch is read right here so esbuild can drop it).
 */
const CARRIED: readonly (typeof NOTIFIERS)[number][] = [
  snsNotifier,
  ...(globalThis.CLOUDOPS_WITHOUT_SLACK ? [] : [slackNotifier]),
  ...(globalThis.CLOUDOPS_WITHOUT_WEBHOOK ? [] : [webhookNotifier]),
  ...(globalThis.CLOUDOPS_WITHOUT_PAGERDUTY ? [] : [pagerDutyNotifier]),
  eventBridgeNotifier,
];

/** The notifiers a route may give a destination of its own (those whose destination is a secret). */
export const ROUTABLE_DESTINATIONS = /* @__PURE__ */ NOTIFIERS.filter(
  (n) => 'secretSchema' in n,
).map((n) => n.name);

/** The machine channel every notice goes to, routed or not, unless the table says otherwise. */
const ALWAYS_BY_DEFAULT: NotifierName = 'eventbridge';

/**
 * Every notifier's variables, the shared ones and the routing table (what the functions' extend);
 * in a bundle built without some, their variables are refused instead.
 */
export const notifierEnv = z.extend(notifierEnvOf(CARRIED), {
  ...(globalThis.CLOUDOPS_WITHOUT_SLACK ? refusedVariables('slack') : {}),
  ...(globalThis.CLOUDOPS_WITHOUT_WEBHOOK ? refusedVariables('webhook') : {}),
  ...(globalThis.CLOUDOPS_WITHOUT_PAGERDUTY ? refusedVariables('pagerduty') : {}),
  /** JSON: lib/watch/routes.ts. */
  CLOUDOPS_WATCHDOG_ROUTES: globalThis.CLOUDOPS_WITHOUT_ROUTES
    ? refusal('routes')
    : z.optional(routeTableJson),
});
type NotifierEnv = z.output<typeof notifierEnv>;

/**
 * The notifiers `env` configures, in the list's order (their values checked, none echoed), then
 * the routes' own destinations; with a routing table each takes only what is routed to it.
 * `render` is the watcher's renderer of its notices (its NoticeSet's).
 */
export function configuredNotifiers(env: NotifierEnv, render: RenderNotice): ConfiguredNotifier[] {
  const defaults = configuredOf(CARRIED, env, render);
  const table = env.CLOUDOPS_WATCHDOG_ROUTES;
  // The switch guards the block (not an early return) so esbuild drops routing with it.
  if (!globalThis.CLOUDOPS_WITHOUT_ROUTES && table) return routed(env, table, defaults, render);
  return defaults;
}

/** The configured notifiers and the routes' own destinations, each taking what is routed to it. */
function routed(
  env: NotifierEnv,
  table: RouteTable,
  defaults: ConfiguredNotifier[],
  render: RenderNotice,
): ConfiguredNotifier[] {
  const shared = { linkTemplate: env.CLOUDOPS_WATCHDOG_LINK_TEMPLATE, render };
  const names = defaults.map((d) => d.name);
  const problems = unknownNames(table, names, ROUTABLE_DESTINATIONS);
  if (problems.length > 0)
    throw new ConfigError(`invalid CLOUDOPS_WATCHDOG_ROUTES: ${problems.join('; ')}`);
  const all = [...defaults, ...routeDestinations(env, table, shared)];
  const owed = router(table, names, render);
  return all.map((c) => ({
    name: c.name,
    create: (clients) => accepting(c.create(clients), (n) => owed(n).has(c.name)),
  }));
}

/** Each route's own destinations, made by their notifier with that secret. */
function routeDestinations(
  env: NotifierEnv,
  table: RouteTable,
  shared: Omit<NotifierContext, 'name'>,
): ConfiguredNotifier[] {
  return table.routes.flatMap((route, i) =>
    Object.entries(route.destinations).map(([notifier, given]) => {
      const definition = NOTIFIERS.find((n) => n.name === notifier)!;
      const where = `routes[${i}].destinations.${notifier}`;
      const name = destinationName(notifier, route.name);
      const create = definition.configureRouted(
        env,
        (schema) => destinationSource(schema, given, where),
        { name, ...shared },
      );
      return { name, create: create! };
    }),
  );
}

/** A destination's secret by id, or its value checked against the notifier's secret shape. */
function destinationSource<T>(
  schema: z.ZodMiniType<T> | undefined,
  given: Record<string, unknown>,
  where: string,
): SecretSource<T> {
  if (typeof given.secretId === 'string') return { secretId: given.secretId };
  for (const value of Object.values(given)) if (typeof value === 'string') registerSecret(value);
  if (!schema)
    throw new ConfigError(
      `invalid CLOUDOPS_WATCHDOG_ROUTES: ${where}: give it as { "secretId": ... }`,
    );
  const checked = schema.safeParse(given);
  if (!checked.success)
    throw new ConfigError(
      `invalid CLOUDOPS_WATCHDOG_ROUTES: ${checked.error.issues
        .map(
          (issue) =>
            `${where}${issue.path.length ? '.' : ''}${pathText(issue.path)}: ${issue.message}`,
        )
        .join('; ')}`,
    );
  return { value: checked.data };
}

/** The names each notice is owed, worked out once per notice (every notifier asks). */
function router(table: RouteTable, configured: readonly string[], render: RenderNotice) {
  const always = configured.includes(ALWAYS_BY_DEFAULT) ? [ALWAYS_BY_DEFAULT] : [];
  const known = new WeakMap<Notice, Set<string>>();
  return (n: Notice): Set<string> => {
    let owed = known.get(n);
    if (!owed) {
      owed = routeNotice(table, n, render(n).routing, { notifiers: configured, always });
      known.set(n, owed);
    }
    return owed;
  };
}

function accepting(notifier: Notifier, accepts: (n: Notice) => boolean): Notifier {
  return {
    name: notifier.name,
    send: (n, signal) => notifier.send(n, signal),
    ...(notifier.sendBatch
      ? { sendBatch: (list, signal) => notifier.sendBatch!(list, signal) }
      : {}),
    accepts,
  };
}
