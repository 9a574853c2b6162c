/**
 * What a notifier is, and what one file in this folder declares to be one: its name, its env
 * and settings, the secret it reads (if any), and how it is made.
 */
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SNSClient } from '@aws-sdk/client-sns';
import type * as z from 'zod/mini';
import { CloudOpsError, type ErrorOptions } from '../../errors';
import type { Notice, RenderNotice } from '../notice';

/** Where a destination's secret comes from: a Secrets Manager secret, or a value (local runs). */
export type SecretSource<T> = { secretId: string } | { value: T };

/** The HTTP notifiers' POST (./http.ts): a timeout per attempt, retries with backoff. */
export interface HttpPostOptions {
  /** @default 5000 per attempt */
  timeoutMs?: number;
  /** @default 3 */
  attempts?: number;
  /** @default 200 (doubled per retry) */
  backoffMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

/** One result per notice of a batch, same order: undefined when delivered. */
export type BatchResult = (NotifyError | undefined)[];

/** Somewhere notices go. `send` resolves once delivered, or throws a NotifyError. */
export interface Notifier {
  /** Unique per configured notifier: pending deliveries are tracked by it. */
  readonly name: string;
  send(notice: Notice, signal?: AbortSignal): Promise<void>;
  /**
   * Several notices in as few calls as the receiver allows (used instead of `send` when
   * present). Resolves one result per notice, in order; a failed call fails its entries, so it
   * does not reject.
   */
  sendBatch?(notices: readonly Notice[], signal?: AbortSignal): Promise<BatchResult>;
  /**
   * Whether this notice is owed to this notifier (the routing table's choice, made when the
   * notice becomes pending); absent: every notice is.
   */
  accepts?(notice: Notice): boolean;
}

export class NotifyError extends CloudOpsError {
  override name = 'NotifyError';
  readonly notifier: string;
  /** HTTP status when the receiver answered. */
  readonly status: number | undefined;
  /** The message is prefixed with the notifier's name. */
  constructor(message: string, options: ErrorOptions & { notifier: string; status?: number }) {
    super(`${options.notifier}: ${message}`, options);
    this.notifier = options.notifier;
    this.status = options.status;
  }
}

/** The clients notifiers use; each is made on first use when not given. */
export interface NotifierClients {
  sns?: SNSClient;
  eventBridge?: EventBridgeClient;
  /** Reads the secrets of the notifiers configured by secret id. */
  secretsManager?: SecretsManagerClient;
  http?: HttpPostOptions;
}

/**
 * What a notifier is made with. SNS and EventBridge are configured once each and make their
 * client when none is given (so only a bundle that uses one carries it); the Secrets Manager
 * client is shared by every destination that reads a secret, made once, on first use.
 */
export interface NotifierClientSource {
  sns?: SNSClient | undefined;
  eventBridge?: EventBridgeClient | undefined;
  secretsManager: () => SecretsManagerClient;
  http: HttpPostOptions;
}

/** What every notifier is made with besides its own settings. */
export interface NotifierContext {
  /** Unique among the configured notifiers: `slack`, or `slack:team-a` for a route's own. */
  name: string;
  /** CLOUDOPS_WATCHDOG_LINK_TEMPLATE: each notice's link (lib/watch/notice.ts `explain`). */
  linkTemplate?: string | undefined;
  /** The watcher's renderer of its notices (its NoticeSet's). */
  render: RenderNotice;
}

/** A notifier's declaration (one file in lib/watch/notifiers, one line in registry.ts). */
interface NotifierDefinition<E extends z.ZodMiniObject, S, T> {
  readonly name: string;
  /** Its variables, parsed with every other setting by lib/config.ts's readEnv. */
  readonly env: E;
  /**
   * The variable naming its Secrets Manager secret, when it reads one: the CDK sets it and
   * grants read on that secret to exactly the functions that notify through it.
   */
  readonly secretIdVariable?: keyof z.input<E> & string;
  /** The shape of that secret (what a route's own destination of this notifier holds too). */
  readonly secretSchema?: z.ZodMiniType<T>;
  /** Its settings from its parsed variables; undefined when it is not configured. */
  settings(env: z.output<E>): S | undefined;
  /** Its settings for a route's own destination: that secret, with the rest of env as given. */
  routed?(env: z.output<E>, destination: SecretSource<T>): S;
  create(settings: S, clients: NotifierClientSource, context: NotifierContext): Notifier;
}

/** A configured notifier, made once its clients are known. */
export type Make = (clients: NotifierClientSource) => Notifier;

/** A notifier definition that can also say, from parsed env, how to make it (if configured). */
export function defineNotifier<E extends z.ZodMiniObject, S, T = never>(
  definition: NotifierDefinition<E, S, T>,
) {
  return {
    ...definition,
    configure(env: z.output<E>, context: NotifierContext): Make | undefined {
      const settings = definition.settings(env);
      return settings === undefined
        ? undefined
        : (clients) => definition.create(settings, clients, context);
    },
    /** A route's own destination of this notifier; undefined when it has none of its own. */
    configureRouted(
      env: z.output<E>,
      /** The route's destination, checked against this notifier's own secret shape. */
      destination: <U>(secretSchema: z.ZodMiniType<U> | undefined) => SecretSource<U>,
      context: NotifierContext,
    ): Make | undefined {
      if (!definition.routed) return undefined;
      const settings = definition.routed(env, destination(definition.secretSchema));
      return (clients) => definition.create(settings, clients, context);
    },
  };
}
