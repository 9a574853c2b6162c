/** Generic webhook: the notification as JSON, HMAC-SHA256 signed when a secret is set. */
import { createHmac } from 'node:crypto';
import { registerSecret } from '../redact';
import type { PipeNotification } from '../pipes/types';
import { postJson, type HttpPostOptions } from './http';
import type { Notifier } from './types';

export const SIGNATURE_HEADER = 'X-Cloudops-Signature';

export interface WebhookNotifierOptions extends HttpPostOptions {
  url: string;
  /** When set, every body is signed: `X-Cloudops-Signature: sha256=<hex HMAC of the body>`. */
  signingSecret?: string;
  /** @default 'webhook' */
  name?: string;
}

export function signBody(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

export function webhookPayload(n: PipeNotification) {
  return { type: 'Pipe State Changed', notification: n };
}

export function createWebhookNotifier(options: WebhookNotifierOptions): Notifier {
  registerSecret(options.signingSecret);
  const name = options.name ?? 'webhook';
  return {
    name,
    async send(n, signal) {
      const body = JSON.stringify(webhookPayload(n));
      const headers: Record<string, string> = { 'X-Cloudops-Notification-Id': n.id };
      if (options.signingSecret) headers[SIGNATURE_HEADER] = signBody(body, options.signingSecret);
      await postJson(name, options.url, body, headers, options, signal);
    },
  };
}
