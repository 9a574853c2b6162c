/** Slack incoming webhook with a Block Kit message. The webhook URL is itself a secret. */
import { staticCredentials } from '../credentials/static';
import type { CredentialProvider } from '../credentials/types';
import type { PipeNotification } from './notification';
import { postJson, type HttpPostOptions } from './http';
import { sendToTarget, slackWebhookSecret, type SlackWebhookSecret } from './secrets';
import { describeChange, subjectOf, type Notifier } from './types';

export interface SlackNotifierOptions extends HttpPostOptions {
  /** The URL, or a provider of `{ url }` (a Secrets Manager secret, re-read when rejected). */
  webhookUrl: string | CredentialProvider<SlackWebhookSecret>;
  /**
   * Link shown on each message; `{organizationId}`, `{serviceId}`, `{pipeId}` are replaced.
   * Without it the message has no link button.
   */
  linkTemplate?: string;
  /** @default 'slack' */
  name?: string;
}

const EMOJI = {
  critical: ':red_circle:',
  warning: ':warning:',
  info: ':large_green_circle:',
} as const;

export function pipeLink(template: string | undefined, n: PipeNotification): string | undefined {
  return template
    ?.replaceAll('{organizationId}', encodeURIComponent(n.organizationId))
    .replaceAll('{serviceId}', encodeURIComponent(n.serviceId))
    .replaceAll('{pipeId}', encodeURIComponent(n.pipeId));
}

/** Slack's limit for one section's text. */
const SECTION_CHARS = 3000;

export function slackPayload(n: PipeNotification, linkTemplate?: string) {
  if (n.about === 'dashboards') return driftPayload(n);
  const change = describeChange(n, { arrow: '→', mark: (s) => `*${s}*` });
  const link = pipeLink(linkTemplate, n);
  const blocks: unknown[] = [
    { type: 'header', text: { type: 'plain_text', text: subjectOf(n) } },
    { type: 'section', text: { type: 'mrkdwn', text: `${EMOJI[n.severity]} ${n.message}` } },
    {
      type: 'section',
      fields: [
        { type: 'mrkdwn', text: `*State change*\n${change}` },
        { type: 'mrkdwn', text: `*Pipe*\n${n.pipeName} (\`${n.pipeId}\`)` },
        { type: 'mrkdwn', text: `*Service*\n\`${n.serviceId}\`` },
        {
          type: 'mrkdwn',
          text: `*Since*\n<!date^${Math.floor(Date.parse(n.since) / 1000)}^{date_short_pretty} {time}|${n.since}>`,
        },
      ],
    },
    {
      type: 'context',
      elements: [{ type: 'mrkdwn', text: `${n.kind} · ${n.severity} · ${n.at}` }],
    },
  ];
  if (link) {
    blocks.push({
      type: 'actions',
      elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open pipe' }, url: link }],
    });
  }
  // `text` is the fallback shown in notifications and by clients without Block Kit.
  return { text: `${subjectOf(n)}: ${n.message}`, blocks };
}

/** Dashboard drift: the summary, then the plan (Slack's mrkdwn shows markdown lists and code). */
function driftPayload(n: PipeNotification) {
  const blocks: unknown[] = [
    { type: 'header', text: { type: 'plain_text', text: subjectOf(n) } },
    { type: 'section', text: { type: 'mrkdwn', text: `${EMOJI[n.severity]} ${n.message}` } },
  ];
  if (n.markdown) {
    const text =
      n.markdown.length > SECTION_CHARS
        ? `${n.markdown.slice(0, SECTION_CHARS - 2)} …`
        : n.markdown;
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text } });
  }
  blocks.push({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: `${n.kind} · ${n.severity} · ${n.at}` }],
  });
  return { text: `${subjectOf(n)}: ${n.message}`, blocks };
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
        postJson(
          name,
          url,
          JSON.stringify(slackPayload(n, options.linkTemplate)),
          {},
          options,
          signal,
        ),
      ),
  };
}
