/** Generic webhook: the notification as JSON, HMAC-SHA256 signed when a secret is set. */
import { createHmac } from 'node:crypto';
import { staticCredentials } from '../credentials/static';
import type { CredentialProvider } from '../credentials/types';
import { PIPE_STATE_CHANGED } from '../events/schemas';
import { DASHBOARDS_DRIFTED, type PipeNotification } from './notification';
import { postJson, type HttpPostOptions } from './http';
import { sendToTarget, webhookSecret, type WebhookSecret } from './secrets';
import type { Notifier } from './types';

export const SIGNATURE_HEADER = 'X-Cloudops-Signature';

/**
 * `url` and an optional `signingSecret` (when set, every body is signed:
 * `X-Cloudops-Signature: sha256=<hex HMAC of the body>`), or a provider of both (a Secrets
 * Manager secret, re-read when the receiver rejects a request).
 */
export type WebhookTarget =
  | { url: string; signingSecret?: string | undefined }
  | { target: CredentialProvider<WebhookSecret> };

export type WebhookNotifierOptions = HttpPostOptions &
  WebhookTarget & {
    /** @default 'webhook' */
    name?: string;
  };

export function signBody(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function webhookPayload(n: PipeNotification) {
  return {
    type: n.about === 'dashboards' ? DASHBOARDS_DRIFTED : PIPE_STATE_CHANGED,
    notification: n,
  };
}

export function createWebhookNotifier(options: WebhookNotifierOptions): Notifier {
  const name = options.name ?? 'webhook';
  const target =
    'target' in options
      ? options.target
      : staticCredentials(
          'webhook',
          { url: options.url, signingSecret: options.signingSecret },
          webhookSecret,
        );
  return {
    name,
    send(n, signal) {
      const body = JSON.stringify(webhookPayload(n));
      return sendToTarget(name, target, ({ url, signingSecret }) => {
        const headers: Record<string, string> = { 'X-Cloudops-Notification-Id': n.id };
        if (signingSecret) headers[SIGNATURE_HEADER] = signBody(body, signingSecret);
        return postJson(name, url, body, headers, options, signal);
      });
    },
  };
}
