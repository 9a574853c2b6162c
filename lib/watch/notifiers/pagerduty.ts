/**
 * PagerDuty Events API v2: a problem is a `trigger`, its recovery a `resolve` with the same
 * `dedup_key` (the notice's, stable per subject and condition), so an incident opens once, takes
 * reminders as updates and closes itself. An info notice that resolves nothing (a healthy pipe
 * found, a service gone idle) is no incident and is not sent. The routing key is a secret: from
 * Secrets Manager `{ "routingKey" }` deployed, or CLOUDOPS_WATCHDOG_PAGERDUTY_ROUTING_KEY locally;
 * re-read once when PagerDuty refuses it. PagerDuty answers 202; 400 is a bad event (not
 * retried), 429 and 5xx are retried (./http.ts), then left pending for the next run.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { url } from '../../schemas/builders';
import { staticCredentials } from '../../credentials/static';
import type { CredentialProvider } from '../../credentials/types';
import { registerSecret } from '../../redact';
import { plainLine } from '../../text/plain';
import { describeChange, explain, type Fact, type Notice, type RenderNotice } from '../notice';
import { postJson } from './http';
import { secretProvider, secretSource, sendToTarget } from './secrets';
import {
  defineNotifier,
  type HttpPostOptions,
  type Notifier,
  type NotifyError,
  type SecretSource,
} from './types';

const ENQUEUE_URL = 'https://events.pagerduty.com/v2/enqueue';
/** The Events API's limits: a summary of 1024 characters, a dedup_key of 255. */
const SUMMARY_CHARS = 1024;
const DEDUP_KEY_CHARS = 255;
/** Longer details (a drift's plan) are cut: an event is at most 512 KB. */
const DETAILS_CHARS = 16_000;

const routingKey = z.lazy(() =>
  z
    .string()
    .check(
      z.regex(
        /^[A-Za-z0-9]{32}$/,
        'expected the 32-character integration key of an Events API v2 integration',
      ),
    ),
);
const pagerDutySecret = z.lazy(() => z.looseObject({ routingKey }));
type PagerDutySecret = z.infer<typeof pagerDutySecret>;

const env = z.object({
  /** Secret `{ "routingKey": ... }`: read at run time, re-read when PagerDuty refuses it. */
  CLOUDOPS_WATCHDOG_PAGERDUTY_SECRET_ID: z.optional(z.string().check(z.minLength(1))),
  /** Local runs (CLI): the routing key itself; registered for redaction. */
  CLOUDOPS_WATCHDOG_PAGERDUTY_ROUTING_KEY: z.optional(routingKey),
  /** Another Events API endpoint (PagerDuty's EU service region, a test receiver). */
  CLOUDOPS_WATCHDOG_PAGERDUTY_URL: z._default(url(), ENQUEUE_URL),
});

interface PagerDutySettings {
  source: SecretSource<PagerDutySecret>;
  url: string;
}

interface PagerDutyNotifierOptions extends HttpPostOptions {
  /** The routing key, or a provider of `{ routingKey }` (a secret, re-read when refused). */
  routingKey: string | CredentialProvider<PagerDutySecret>;
  /** @default the Events API v2 enqueue URL */
  url?: string;
  /** @default 'pagerduty' */
  name?: string;
  linkTemplate?: string | undefined;
  render: RenderNotice;
}

/** The notice's key, or (beyond 255 characters) its start and a hash of the whole. */
function dedupKeyOf(key: string): string {
  if (key.length <= DEDUP_KEY_CHARS) return key;
  const hash = createHash('sha256').update(key).digest('hex');
  return `${key.slice(0, DEDUP_KEY_CHARS - hash.length - 1)}#${hash}`;
}

function factValue(fact: Fact): string {
  if ('text' in fact) return fact.text;
  if ('id' in fact) return fact.name === undefined ? fact.id : `${fact.name} (${fact.id})`;
  if ('time' in fact) return fact.time;
  return describeChange(fact);
}

/** A problem to open, or the end of one; an info notice that resolves nothing is neither. */
const isIncident = (n: Notice) => n.resolves || n.severity !== 'info';

/** The Events API v2 event for an incident's notice. */
function eventOf(n: Notice, key: string, options: PagerDutyNotifierOptions): object {
  const dedup = { routing_key: key, dedup_key: dedupKeyOf(n.dedupKey) };
  if (n.resolves) return { ...dedup, event_action: 'resolve' };
  const rendered = options.render(n);
  const { hint, link } = explain(rendered, options.linkTemplate);
  const { origin } = rendered;
  const details = rendered.details?.slice(0, DETAILS_CHARS);
  return {
    ...dedup,
    event_action: 'trigger',
    client: 'cloudops',
    payload: {
      summary: plainLine(n.message || rendered.title, SUMMARY_CHARS),
      source: plainLine(origin.source, SUMMARY_CHARS),
      severity: n.severity,
      timestamp: n.at,
      ...(origin.component ? { component: origin.component } : {}),
      ...(origin.group ? { group: origin.group } : {}),
      class: n.kind,
      custom_details: {
        condition: n.kind,
        since: n.since,
        ...Object.fromEntries(rendered.facts.map((f) => [f.label, factValue(f)])),
        ...(hint ? { 'first check': hint } : {}),
        ...(details ? { details } : {}),
      },
    },
    ...(link ? { links: [{ href: link.url, text: link.label }] } : {}),
  };
}

/** PagerDuty refuses a routing key it does not know with a 400 naming it (or a 401/403/404). */
const keyRefused = (error: NotifyError) =>
  [401, 403, 404].includes(error.status ?? 0) ||
  (error.status === 400 && /routing.?key/i.test(error.message));

export function createPagerDutyNotifier(options: PagerDutyNotifierOptions): Notifier {
  const name = options.name ?? 'pagerduty';
  const target =
    typeof options.routingKey === 'string'
      ? staticCredentials(name, { routingKey: options.routingKey }, pagerDutySecret)
      : options.routingKey;
  return {
    name,
    async send(n, signal) {
      if (!isIncident(n)) return;
      await sendToTarget(
        name,
        target,
        ({ routingKey: key }) =>
          postJson(
            name,
            options.url ?? ENQUEUE_URL,
            JSON.stringify(eventOf(n, key, options)),
            {},
            options,
            signal,
          ),
        keyRefused,
      );
    },
  };
}

export const pagerDutyNotifier = defineNotifier<typeof env, PagerDutySettings, PagerDutySecret>({
  name: 'pagerduty',
  env,
  secretIdVariable: 'CLOUDOPS_WATCHDOG_PAGERDUTY_SECRET_ID',
  secretSchema: pagerDutySecret,
  settings(e) {
    registerSecret(e.CLOUDOPS_WATCHDOG_PAGERDUTY_ROUTING_KEY);
    const source = secretSource(
      {
        secretId: 'CLOUDOPS_WATCHDOG_PAGERDUTY_SECRET_ID',
        values: ['CLOUDOPS_WATCHDOG_PAGERDUTY_ROUTING_KEY'],
      },
      e.CLOUDOPS_WATCHDOG_PAGERDUTY_SECRET_ID,
      e.CLOUDOPS_WATCHDOG_PAGERDUTY_ROUTING_KEY
        ? { routingKey: e.CLOUDOPS_WATCHDOG_PAGERDUTY_ROUTING_KEY }
        : undefined,
    );
    return source && { source, url: e.CLOUDOPS_WATCHDOG_PAGERDUTY_URL };
  },
  routed: (e, source) => ({ source, url: e.CLOUDOPS_WATCHDOG_PAGERDUTY_URL }),
  create: (s, clients, context) =>
    createPagerDutyNotifier({
      routingKey: secretProvider(context.name, s.source, pagerDutySecret, clients.secretsManager),
      url: s.url,
      name: context.name,
      linkTemplate: context.linkTemplate,
      render: context.render,
      ...clients.http,
    }),
});
