/** The configured notifiers, in a fixed order; AWS clients are injected (or made on demand). */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import type { NotifierSettings } from './settings';
import { createEventBridgeNotifier } from './eventbridge';
import type { HttpPostOptions } from './http';
import { secretProvider, slackWebhookSecret, webhookSecret } from './secrets';
import { createSlackNotifier } from './slack';
import { createSnsNotifier } from './sns';
import type { Notifier } from './types';
import { createWebhookNotifier } from './webhook';

export interface NotifierClients {
  sns?: SNSClient;
  eventBridge?: EventBridgeClient;
  /** Reads the Slack / webhook secrets when they are given by id. */
  secretsManager?: SecretsManagerClient;
  http?: HttpPostOptions;
}

/**
 * Make these once per process (a Lambda container): the Slack / webhook secrets are cached in
 * their providers between runs.
 */
export function createNotifiers(
  settings: NotifierSettings,
  clients: NotifierClients = {},
): Notifier[] {
  const notifiers: Notifier[] = [];
  let secretsClient = clients.secretsManager;
  const secretsManager = () => (secretsClient ??= new SecretsManagerClient({}));
  if (settings.snsTopicArn) {
    notifiers.push(
      createSnsNotifier({
        client: clients.sns ?? new SNSClient({}),
        topicArn: settings.snsTopicArn,
      }),
    );
  }
  if (settings.slack) {
    notifiers.push(
      createSlackNotifier({
        webhookUrl: secretProvider(
          'slack webhook',
          settings.slack,
          slackWebhookSecret,
          secretsManager,
        ),
        linkTemplate: settings.linkTemplate,
        ...clients.http,
      }),
    );
  }
  if (settings.webhook) {
    notifiers.push(
      createWebhookNotifier({
        target: secretProvider('webhook', settings.webhook, webhookSecret, secretsManager),
        ...clients.http,
      }),
    );
  }
  if (settings.eventBus) {
    notifiers.push(
      createEventBridgeNotifier({
        client: clients.eventBridge ?? new EventBridgeClient({}),
        eventBusName: settings.eventBus,
      }),
    );
  }
  return notifiers;
}
