/**
 * The notifiers there are. The env reader and the CDK's Notifications construct both iterate
 * this list: a new notifier is one file in this folder and one line here (then one line in
 * the construct to give it its destination).
 */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import * as z from 'zod';
import { eventBridgeNotifier } from './eventbridge';
import { slackNotifier } from './slack';
import { snsNotifier } from './sns';
import type { Notifier, NotifierClients, NotifierClientSource } from './types';
import { webhookNotifier } from './webhook';

export const NOTIFIERS = [
  snsNotifier,
  slackNotifier,
  webhookNotifier,
  eventBridgeNotifier,
] as const;
export type NotifierName = (typeof NOTIFIERS)[number]['name'];

type Shapes = (typeof NOTIFIERS)[number]['env']['shape'];
type Merged<U> = (U extends unknown ? (u: U) => void : never) extends (m: infer M) => void
  ? M
  : never;

/** Every notifier's variables in one schema (what the functions' env schemas extend). */
export const notifierEnv = z.object(
  Object.assign({}, ...NOTIFIERS.map((n) => n.env.shape)) as Merged<Shapes>,
);
type NotifierEnv = z.output<typeof notifierEnv>;

/** A configured notifier, ready to be made (once per process: secrets stay cached in it). */
export interface ConfiguredNotifier {
  readonly name: NotifierName;
  create(clients: NotifierClientSource): Notifier;
}

/** The notifiers `env` configures, in the list's order (their values checked, none echoed). */
export function configuredNotifiers(env: NotifierEnv): ConfiguredNotifier[] {
  return NOTIFIERS.flatMap((definition): ConfiguredNotifier[] => {
    const create = definition.configure(env);
    return create ? [{ name: definition.name, create }] : [];
  });
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
