/** Which notifiers to make (lib/pipes/config.ts reads them from env; build.ts makes them). */
import type { SecretSource, SlackWebhookSecret, WebhookSecret } from './secrets';

export interface NotifierSettings {
  snsTopicArn?: string;
  slack?: SecretSource<SlackWebhookSecret>;
  linkTemplate?: string;
  webhook?: SecretSource<WebhookSecret>;
  eventBus?: string;
}
