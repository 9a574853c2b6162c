/**
 * Generic webhook: the notice as JSON, signed when a secret is set the way Stripe signs its
 * webhooks, so a receiver can check both who sent it and when (a captured request replayed
 * later fails the age check). README.md, "Verifying the webhook's signature", has the check.
 */
import { createHmac } from 'node:crypto';
import * as z from 'zod/mini';
import { url } from '../../schemas/builders';
import { staticCredentials } from '../../credentials/static';
import type { CredentialProvider } from '../../credentials/types';
import { registerSecret } from '../../redact';
import { explain, type Notice, type RenderNotice } from '../notice';
import { postJson } from './http';
import { secretProvider, secretSource, sendToTarget } from './secrets';
import { defineNotifier, type HttpPostOptions, type Notifier, type SecretSource } from './types';

const SIGNATURE_HEADER = 'X-Cloudops-Signature';

const signingSecret = z.lazy(() =>
  z.string().check(z.minLength(16, 'expected at least 16 characters')),
);

const webhookSecret = z.lazy(() =>
  z.looseObject({
    url: url(),
    signingSecret: z.optional(signingSecret),
  }),
);
type WebhookSecret = z.infer<typeof webhookSecret>;

const env = z.object({
  /** Secret `{ "url": ..., "signingSecret"?: ... }`: read at run time, re-read when rejected. */
  CLOUDOPS_WATCHDOG_WEBHOOK_SECRET_ID: z.optional(z.string().check(z.minLength(1))),
  /** Local runs (CLI): the values themselves; registered for redaction. */
  CLOUDOPS_WATCHDOG_WEBHOOK_URL: z.optional(url()),
  CLOUDOPS_WATCHDOG_WEBHOOK_SIGNING_SECRET: z.optional(signingSecret),
});

/**
 * `url` and an optional `signingSecret` (when set, every request is signed, see `signature`),
 * or a provider of both (a Secrets Manager secret, re-read when the receiver rejects a request).
 */
type WebhookTarget =
  | { url: string; signingSecret?: string | undefined }
  | { target: CredentialProvider<WebhookSecret> };

type WebhookNotifierOptions = HttpPostOptions &
  WebhookTarget & {
    /** @default 'webhook' */
    name?: string;
    /** Each notice's link (CLOUDOPS_WATCHDOG_LINK_TEMPLATE). */
    linkTemplate?: string | undefined;
    render: RenderNotice;
    /** Epoch milliseconds, the signature's timestamp. @default Date.now */
    now?: () => number;
  };

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`: the time is signed with the body. */
function signature(body: string, secret: string, nowMs: number): string {
  const t = Math.floor(nowMs / 1000);
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/**
 * `{ type, notification, hint?, link? }`: the event type of the notice's subject, the notice
 * (its values raw, as the service gave them), the first thing to check and the link.
 */
function webhookPayload(n: Notice, options: WebhookNotifierOptions) {
  const rendered = options.render(n);
  return { type: rendered.event.type, notification: n, ...explain(rendered, options.linkTemplate) };
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
      const body = JSON.stringify(webhookPayload(n, options));
      return sendToTarget(name, target, ({ url, signingSecret }) => {
        const headers: Record<string, string> = { 'X-Cloudops-Notification-Id': n.id };
        if (signingSecret)
          headers[SIGNATURE_HEADER] = signature(body, signingSecret, (options.now ?? Date.now)());
        return postJson(name, url, body, headers, options, signal);
      });
    },
  };
}

export const webhookNotifier = defineNotifier<
  typeof env,
  SecretSource<WebhookSecret>,
  WebhookSecret
>({
  name: 'webhook',
  env,
  secretIdVariable: 'CLOUDOPS_WATCHDOG_WEBHOOK_SECRET_ID',
  secretSchema: webhookSecret,
  settings(e) {
    registerSecret(e.CLOUDOPS_WATCHDOG_WEBHOOK_URL);
    registerSecret(e.CLOUDOPS_WATCHDOG_WEBHOOK_SIGNING_SECRET);
    return secretSource(
      {
        secretId: 'CLOUDOPS_WATCHDOG_WEBHOOK_SECRET_ID',
        values: ['CLOUDOPS_WATCHDOG_WEBHOOK_URL', 'CLOUDOPS_WATCHDOG_WEBHOOK_SIGNING_SECRET'],
      },
      e.CLOUDOPS_WATCHDOG_WEBHOOK_SECRET_ID,
      e.CLOUDOPS_WATCHDOG_WEBHOOK_URL
        ? {
            url: e.CLOUDOPS_WATCHDOG_WEBHOOK_URL,
            signingSecret: e.CLOUDOPS_WATCHDOG_WEBHOOK_SIGNING_SECRET,
          }
        : undefined,
    );
  },
  routed: (_, destination) => destination,
  create: (source, clients, context) =>
    createWebhookNotifier({
      target: secretProvider(context.name, source, webhookSecret, clients.secretsManager),
      name: context.name,
      linkTemplate: context.linkTemplate,
      render: context.render,
      ...clients.http,
    }),
});
