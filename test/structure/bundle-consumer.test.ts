/**
 * The pipe watchdog consumer's bundle carries the notifiers its deployment binds and no others:
 * SNS and EventBridge always, Slack, the webhook and PagerDuty only with their secret, routing
 * only with a table (which keeps every notifier: a route may name any). The defines are the
 * ones the stack gives the consumer (Notifications.bundleDefines), built as the other structure
 * tests build (./function-bundle.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleOf, definesPerDeployment } from './function-bundle';

const CONSUMER = 'functions/pipe-watchdog/consumer.ts';

/** Each notifier's own files, and routing's (the table and what only it reaches). */
const PARTS = {
  slack: ['lib/watch/notifiers/slack.ts', 'lib/watch/notifiers/slack-text.ts'],
  webhook: ['lib/watch/notifiers/webhook.ts'],
  pagerduty: ['lib/watch/notifiers/pagerduty.ts'],
  routes: ['lib/watch/routes.ts'],
  /** What every notifier that reads a secret shares: HTTP POST and its secret's provider. */
  secretNotifiers: ['lib/watch/notifiers/http.ts', 'lib/watch/notifiers/secrets.ts'],
} as const;
type Part = keyof typeof PARTS;

const ALWAYS = ['lib/watch/notifiers/sns.ts', 'lib/watch/notifiers/eventbridge.ts'];

const DEPLOYMENTS: Record<string, Record<string, unknown>> = {
  /** The bench's and the quick start's: the topic and the bus. */
  default: {},
  slack: { 'cloudops:slackWebhookSecretName': 'cloudops/slack' },
  everything: {
    'cloudops:slackWebhookSecretName': 'cloudops/slack',
    'cloudops:webhookSecretName': 'cloudops/webhook',
    'cloudops:pagerdutySecretName': 'cloudops/pagerduty',
    'cloudops:watchdogRoutes': { routes: [{ name: 'a', pipeIds: ['p1'], notify: ['sns'] }] },
  },
  /** A table keeps every notifier, configured or not: a route may give any its own secret. */
  routes: {
    'cloudops:watchdogRoutes': {
      routes: [{ name: 'a', pipeIds: ['p1'], destinations: { webhook: { secretId: 'a/hook' } } }],
    },
  },
};

let defines: Map<string, Record<string, string>>;
beforeAll(() => {
  defines = definesPerDeployment(DEPLOYMENTS, (stack) => stack.pipeWatchdog.consumer);
});

async function carried(deployment: string): Promise<{ parts: Part[]; files: string[] }> {
  const { files } = await bundleOf(CONSUMER, { define: defines.get(deployment) });
  const parts = (Object.keys(PARTS) as Part[]).filter((part) => {
    const found = PARTS[part].filter((f) => files.includes(f));
    if (found.length > 0 && found.length < PARTS[part].length)
      throw new Error(`${part}: only ${found.join(', ')} of ${PARTS[part].join(', ')}`);
    return found.length > 0;
  });
  return { parts, files };
}

describe("the consumer's bundle carries the notifiers its deployment binds", () => {
  it.each([
    ['default', []],
    ['slack', ['slack', 'secretNotifiers']],
    ['everything', ['slack', 'webhook', 'pagerduty', 'routes', 'secretNotifiers']],
    ['routes', ['slack', 'webhook', 'pagerduty', 'routes', 'secretNotifiers']],
  ] as const)(
    '%s deployment: SNS, EventBridge and %j',
    async (deployment, parts) => {
      const bundle = await carried(deployment);
      expect(bundle.parts.sort()).toEqual([...parts].sort());
      expect(ALWAYS.filter((f) => bundle.files.includes(f))).toEqual(ALWAYS);
    },
    60_000,
  );

  it('leaving them out saves at least 10 KiB of the minified bundle (SDK aside)', async () => {
    const size = async (deployment: string) =>
      (await bundleOf(CONSUMER, { define: defines.get(deployment), minify: true })).text.length;
    const saved = (await size('everything')) - (await size('default'));
    expect(saved / 1024).toBeGreaterThanOrEqual(10);
  }, 60_000);

  it("reads its stored notices and its configuration without zod's DiscriminatedUnion and Prefault", async () => {
    const { text } = await bundleOf(CONSUMER, { define: defines.get('default') });
    expect(text).not.toMatch(/\bvar ZodMiniDiscriminatedUnion = /);
    expect(text).not.toMatch(/\bvar ZodMiniPrefault = /);
    expect(text).toMatch(/\bvar ZodMiniObject = /); // the check sees a kind the bundle has
  }, 60_000);

  it('a build without the defines (the CLI, tests) carries every notifier', async () => {
    const { files } = await bundleOf(CONSUMER);
    for (const part of Object.values(PARTS))
      expect(files).toEqual(expect.arrayContaining([...part]));
  }, 60_000);
});
