/**
 * Slack incoming webhook with a Block Kit message. The webhook URL is itself a secret. Every
 * value from a notice is escaped for mrkdwn (slack-text.ts): a pipe named `<!channel>` pages
 * nobody.
 */
import * as z from 'zod/mini';
import { url } from '../../schemas/builders';
import { staticCredentials } from '../../credentials/static';
import type { CredentialProvider } from '../../credentials/types';
import { registerSecret } from '../../redact';
import { describeChange, explain, type Fact, type Notice, type RenderNotice } from '../notice';
import { postJson } from './http';
import { mrkdwn, mrkdwnCode, slackPlain } from './slack-text';
import { secretProvider, secretSource, sendToTarget } from './secrets';
import { defineNotifier, type HttpPostOptions, type Notifier, type SecretSource } from './types';

const slackWebhookSecret = z.lazy(() => z.looseObject({ url: url() }));
type SlackWebhookSecret = z.infer<typeof slackWebhookSecret>;

const env = z.object({
  /**
   * Secret `{ "url": ... }` holding the Slack incoming-webhook URL (which contains its own
   * token): read at run time, cached, re-read when Slack rejects it. Deployed functions use this.
   */
  CLOUDOPS_WATCHDOG_SLACK_SECRET_ID: z.optional(z.string().check(z.minLength(1))),
  /** Local runs (CLI): the URL itself; registered for redaction. */
  CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL: z.optional(url()),
});

interface SlackNotifierOptions extends HttpPostOptions {
  /** The URL, or a provider of `{ url }` (a Secrets Manager secret, re-read when rejected). */
  webhookUrl: string | CredentialProvider<SlackWebhookSecret>;
  linkTemplate?: string | undefined;
  render: RenderNotice;
  /** @default 'slack' */
  name?: string;
}

const EMOJI = {
  critical: ':red_circle:',
  warning: ':warning:',
  info: ':large_green_circle:',
} as const;

/** Slack's limit for one section's text. */
const SECTION_CHARS = 3000;

function factText(fact: Fact): string {
  if ('text' in fact) return mrkdwn(fact.text);
  if ('id' in fact)
    return fact.name === undefined
      ? mrkdwnCode(fact.id)
      : `${mrkdwn(fact.name)} (${mrkdwnCode(fact.id)})`;
  if ('time' in fact) {
    const seconds = Math.floor(Date.parse(fact.time) / 1000);
    if (!Number.isFinite(seconds)) return mrkdwn(fact.time);
    return `<!date^${seconds}^{date_short_pretty} {time}|${mrkdwn(fact.time)}>`;
  }
  return describeChange(fact, { arrow: '→', mark: (s) => `*${mrkdwn(s)}*` });
}

/** A mrkdwn text object Slack shows as sent: no automatic links or mentions. */
const text = (value: string) => ({ type: 'mrkdwn', text: value, verbatim: true });

function slackPayload(n: Notice, options: SlackNotifierOptions) {
  const rendered = options.render(n);
  const { hint, link } = explain(rendered, options.linkTemplate);
  const blocks: unknown[] = [
    { type: 'header', text: { type: 'plain_text', text: slackPlain(rendered.title) } },
    { type: 'section', text: text(`${EMOJI[n.severity]} ${mrkdwn(n.message)}`) },
  ];
  if (rendered.facts.length > 0) {
    blocks.push({
      type: 'section',
      fields: rendered.facts.map((f) => text(`*${f.label}*\n${factText(f)}`)),
    });
  }
  if (hint) blocks.push({ type: 'section', text: text(`*First check:* ${mrkdwn(hint)}`) });
  if (rendered.details) {
    const details = mrkdwn(rendered.details, 'keep');
    blocks.push({
      type: 'section',
      text: text(
        details.length > SECTION_CHARS ? `${details.slice(0, SECTION_CHARS - 2)} …` : details,
      ),
    });
  }
  blocks.push({
    type: 'context',
    elements: [text(mrkdwn(`${n.kind} · ${n.severity} · ${n.at}`))],
  });
  if (link) {
    blocks.push({
      type: 'actions',
      elements: [{ type: 'button', text: { type: 'plain_text', text: link.label }, url: link.url }],
    });
  }
  // `text` is the fallback shown in notifications and by clients without Block Kit.
  return { text: mrkdwn(`${rendered.title}: ${n.message}`), blocks };
}

export function createSlackNotifier(options: SlackNotifierOptions): Notifier {
  const name = options.name ?? 'slack';
  const target =
    typeof options.webhookUrl === 'string'
      ? staticCredentials('slack webhook', { url: options.webhookUrl }, slackWebhookSecret)
      : options.webhookUrl;
  return {
    name,
    send: (n, signal) =>
      sendToTarget(name, target, ({ url }) =>
        postJson(name, url, JSON.stringify(slackPayload(n, options)), {}, options, signal),
      ),
  };
}

export const slackNotifier = defineNotifier<
  typeof env,
  SecretSource<SlackWebhookSecret>,
  SlackWebhookSecret
>({
  name: 'slack',
  env,
  secretIdVariable: 'CLOUDOPS_WATCHDOG_SLACK_SECRET_ID',
  secretSchema: slackWebhookSecret,
  settings(e) {
    registerSecret(e.CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL);
    return secretSource(
      {
        secretId: 'CLOUDOPS_WATCHDOG_SLACK_SECRET_ID',
        values: ['CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL'],
      },
      e.CLOUDOPS_WATCHDOG_SLACK_SECRET_ID,
      e.CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL
        ? { url: e.CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL }
        : undefined,
    );
  },
  routed: (_, destination) => destination,
  create: (webhook, clients, context) =>
    createSlackNotifier({
      webhookUrl: secretProvider(
        `${context.name} webhook`,
        webhook,
        slackWebhookSecret,
        clients.secretsManager,
      ),
      linkTemplate: context.linkTemplate,
      render: context.render,
      name: context.name,
      ...clients.http,
    }),
});
