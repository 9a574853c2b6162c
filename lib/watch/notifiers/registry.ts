/**
 * The notifiers there are. The env reader and the CDK's Notifications construct both iterate
 * this list: a new notifier is one file in this folder and one line here (then one line in
 * the construct to give it its destination). With a routing table (CLOUDOPS_WATCHDOG_ROUTES),
 * routes add destinations of their own and each notifier takes only the notices routed to it.
 */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import * as z from 'zod/mini';
import { ConfigError } from '../../errors';
import { registerSecret } from '../../redact';
import { renderNotice, type Notice } from '../notices';
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
import { slackNotifier } from './slack';
import { snsNotifier } from './sns';
import type {
  Notifier,
  NotifierClients,
  NotifierClientSource,
  NotifierContext,
  SecretSource,
} from './types';
import { webhookNotifier } from './webhook';

export const NOTIFIERS = [
  snsNotifier,
  slackNotifier,
  webhookNotifier,
  pagerDutyNotifier,
  eventBridgeNotifier,
] as const;
export type NotifierName = (typeof NOTIFIERS)[number]['name'];

/** The notifiers a route may give a destination of its own (those whose destination is a secret). */
export const ROUTABLE_DESTINATIONS = NOTIFIERS.filter((n) => 'secretSchema' in n).map(
  (n) => n.name,
);

/** The machine channel every notice goes to, routed or not, unless the table says otherwise. */
const ALWAYS_BY_DEFAULT: NotifierName = 'eventbridge';

const linkTemplate = z.lazy(() =>
  z.string().check(
    z.minLength(1),
    z.refine(
      (template) => {
        try {
          return /^https?:$/.test(new URL(template.replace(/\{\w+\}/g, 'x')).protocol);
        } catch {
          return false;
        }
      },
      { message: 'expected an http(s) URL with {organizationId}, {serviceId} or {pipeId} in it' },
    ),
  ),
);

/** What every notifier shares: the link of each notice, and the routing table. */
const sharedEnv = z.object({
  /** e.g. https://console.example/{organizationId}/services/{serviceId}/pipes/{pipeId} */
  CLOUDOPS_WATCHDOG_LINK_TEMPLATE: z.optional(linkTemplate),
  /** JSON: lib/watch/routes.ts. */
  CLOUDOPS_WATCHDOG_ROUTES: z.optional(routeTableJson),
});

type Shapes = (typeof NOTIFIERS)[number]['env']['shape'];
type Merged<U> = (U extends unknown ? (u: U) => void : never) extends (m: infer M) => void
  ? M
  : never;

/** Every notifier's variables and the shared ones in one schema (what the functions' extend). */
export const notifierEnv = z.object(
  Object.assign({}, sharedEnv.shape, ...NOTIFIERS.map((n) => n.env.shape)) as Merged<Shapes> &
    typeof sharedEnv.shape,
);
type NotifierEnv = z.output<typeof notifierEnv>;

/** A configured notifier, ready to be made (once per process: secrets stay cached in it). */
export interface ConfiguredNotifier {
  /** Its notifier's name, or a route's own destination's (`slack:team-a`). */
  readonly name: string;
  create(clients: NotifierClientSource): Notifier;
}

/**
 * The notifiers `env` configures, in the list's order (their values checked, none echoed), then
 * the routes' own destinations; with a routing table each takes only what is routed to it.
 */
export function configuredNotifiers(env: NotifierEnv): ConfiguredNotifier[] {
  const shared = { linkTemplate: env.CLOUDOPS_WATCHDOG_LINK_TEMPLATE };
  const defaults = NOTIFIERS.flatMap((definition): ConfiguredNotifier[] => {
    const context: NotifierContext = { name: definition.name, ...shared };
    const create = definition.configure(env, context);
    return create ? [{ name: definition.name, create }] : [];
  });
  const table = env.CLOUDOPS_WATCHDOG_ROUTES;
  if (!table) return defaults;
  const names = defaults.map((d) => d.name);
  const problems = unknownNames(table, names, ROUTABLE_DESTINATIONS);
  if (problems.length > 0)
    throw new ConfigError(`invalid CLOUDOPS_WATCHDOG_ROUTES: ${problems.join('; ')}`);
  const all = [...defaults, ...routeDestinations(env, table, shared)];
  const owed = router(table, names);
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
function router(table: RouteTable, configured: readonly string[]) {
  const always = configured.includes(ALWAYS_BY_DEFAULT) ? [ALWAYS_BY_DEFAULT] : [];
  const known = new WeakMap<Notice, Set<string>>();
  return (n: Notice): Set<string> => {
    let owed = known.get(n);
    if (!owed) {
      owed = routeNotice(table, n, renderNotice(n).routing, { notifiers: configured, always });
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

/** Make the configured notifiers; AWS clients are injected or made once, on first use. */
export function createNotifiers(
  configured: readonly ConfiguredNotifier[],
  clients: NotifierClients = {},
): Notifier[] {
  let sns = clients.sns;
  let eventBridge = clients.eventBridge;
  let secretsManager = clients.secretsManager;
  const source: NotifierClientSource = {
    sns: () => (sns ??= new SNSClient({})),
    eventBridge: () => (eventBridge ??= new EventBridgeClient({})),
    secretsManager: () => (secretsManager ??= new SecretsManagerClient({})),
    http: clients.http ?? {},
  };
  return configured.map((c) => c.create(source));
}
