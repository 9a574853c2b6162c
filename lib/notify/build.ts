/** The configured notifiers, in a fixed order; AWS clients are injected (or made on demand). */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SNSClient } from '@aws-sdk/client-sns';
import type { NotifierSettings } from '../pipes/config';
import { createEventBridgeNotifier } from './eventbridge';
import type { HttpPostOptions } from './http';
import { createSlackNotifier } from './slack';
import { createSnsNotifier } from './sns';
import type { Notifier } from './types';
import { createWebhookNotifier } from './webhook';

export interface NotifierClients {
  sns?: SNSClient;
  eventBridge?: EventBridgeClient;
  http?: HttpPostOptions;
}

export function createNotifiers(
  settings: NotifierSettings,
  clients: NotifierClients = {},
): Notifier[] {
  const notifiers: Notifier[] = [];
  if (settings.snsTopicArn) {
    notifiers.push(
      createSnsNotifier({
        client: clients.sns ?? new SNSClient({}),
        topicArn: settings.snsTopicArn,
      }),
    );
  }
  if (settings.slackWebhookUrl) {
    notifiers.push(
      createSlackNotifier({
        webhookUrl: settings.slackWebhookUrl,
        linkTemplate: settings.linkTemplate,
        ...clients.http,
      }),
    );
  }
  if (settings.webhookUrl) {
    notifiers.push(
      createWebhookNotifier({
        url: settings.webhookUrl,
        signingSecret: settings.webhookSigningSecret,
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
