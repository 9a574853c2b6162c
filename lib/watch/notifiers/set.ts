/**
 * Notifiers from a list: the env they read, the ones that env configures, and making them. The
 * registry (registry.ts) is every notifier plus routing; a watcher that can only notify through
 * some (the key sentinel: SNS alone, as the stack binds it) uses its own list, and its bundle
 * carries only those notifiers and their clients.
 */
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod/mini';
import type { RenderNotice } from '../notice';
import type {
  Make,
  Notifier,
  NotifierClients,
  NotifierClientSource,
  NotifierContext,
} from './types';

/** What a list holds: a notifier file's `defineNotifier(...)`. */
interface NotifierEntry {
  readonly name: string;
  readonly env: z.ZodMiniObject;
  /** Its own variables (a subset of what the list's env parsed); undefined when not configured. */
  configure(env: never, context: NotifierContext): Make | undefined;
}

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

/** What every notifier shares: the link of each notice. */
const sharedShape = {
  /** e.g. https://console.example/{organizationId}/services/{serviceId}/pipes/{pipeId} */
  CLOUDOPS_WATCHDOG_LINK_TEMPLATE: z.optional(linkTemplate),
};

type Merged<U> = (U extends unknown ? (u: U) => void : never) extends (m: infer M) => void
  ? M
  : never;
type ShapeOf<L extends readonly NotifierEntry[]> = Merged<L[number]['env']['shape']> &
  typeof sharedShape;

/** The variables of every notifier of `list` and the shared ones, in one schema. */
export function notifierEnvOf<const L extends readonly NotifierEntry[]>(list: L) {
  return z.object(Object.assign({}, sharedShape, ...list.map((n) => n.env.shape)) as ShapeOf<L>);
}

/** A configured notifier, ready to be made (once per process: secrets stay cached in it). */
export interface ConfiguredNotifier {
  /** Its notifier's name, or a route's own destination's (`slack:team-a`). */
  readonly name: string;
  create(clients: NotifierClientSource): Notifier;
}

/**
 * The notifiers of `list` that `env` (parsed by notifierEnvOf(list)) configures, in its order,
 * rendering notices with `render` (the watcher's NoticeSet's).
 */
export function configuredOf(
  list: readonly NotifierEntry[],
  env: { CLOUDOPS_WATCHDOG_LINK_TEMPLATE?: string | undefined },
  render: RenderNotice,
): ConfiguredNotifier[] {
  const shared = { linkTemplate: env.CLOUDOPS_WATCHDOG_LINK_TEMPLATE, render };
  return list.flatMap((definition): ConfiguredNotifier[] => {
    const context: NotifierContext = { name: definition.name, ...shared };
    // env holds every variable of the list, this notifier's among them.
    const create = definition.configure(env as never, context);
    return create ? [{ name: definition.name, create }] : [];
  });
}

/** Make the configured notifiers; AWS clients are injected or made once, on first use. */
export function createNotifiers(
  configured: readonly ConfiguredNotifier[],
  clients: NotifierClients = {},
): Notifier[] {
  let secretsManager = clients.secretsManager;
  const source: NotifierClientSource = {
    sns: clients.sns,
    eventBridge: clients.eventBridge,
    secretsManager: () => (secretsManager ??= new SecretsManagerClient({})),
    http: clients.http ?? {},
  };
  return configured.map((c) => c.create(source));
}
