/**
 * What a consumer built without some notifiers does at run time: the ones it carries work as
 * before, and a variable of one it was built without is refused by name (set by hand on the
 * function, it would otherwise notify no one). The switches are the globals esbuild's define
 * replaces; here they are set on globalThis before the modules load, which is what the
 * replaced code reads.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { refusedVariables, type LeavablePart } from '../../../lib/watch/notifiers/bundle-switches';
import { NOTIFIERS } from '../../../lib/watch/notifiers/registry';

const SWITCH = {
  slack: 'CLOUDOPS_WITHOUT_SLACK',
  webhook: 'CLOUDOPS_WITHOUT_WEBHOOK',
  pagerduty: 'CLOUDOPS_WITHOUT_PAGERDUTY',
  routes: 'CLOUDOPS_WITHOUT_ROUTES',
} as const;

const BASE = {
  CLOUDOPS_API_URL: 'https://api.example.test/v1',
  CLOUDOPS_ORGANIZATION_ID: '11111111-1111-4111-8111-111111111111',
  CLOUDOPS_SERVICE_ID: '22222222-2222-4222-8222-222222222222',
  CLOUDOPS_WATCHDOG_TABLE: 'watch',
  CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: 'arn:aws:sns:eu-west-1:123456789012:notices',
  CLOUDOPS_WATCHDOG_EVENT_BUS: 'cloudops',
};

/** The consumer's settings reader as a bundle without `parts` runs it. */
async function settingsReaderWithout(parts: readonly LeavablePart[]) {
  vi.resetModules();
  for (const part of parts) globalThis[SWITCH[part]] = true;
  const { readWatchdogSettings } = await import('../../../lib/pipes/config');
  return (extra: Record<string, string> = {}) => readWatchdogSettings({ ...BASE, ...extra });
}

afterEach(() => {
  for (const name of Object.values(SWITCH)) delete globalThis[name];
});

const names = (settings: { notifiers: { name: string }[] }) =>
  settings.notifiers.map((n) => n.name);

describe('a consumer built without some notifiers', () => {
  it('configures the ones it carries as before', async () => {
    const read = await settingsReaderWithout(['slack', 'webhook', 'pagerduty', 'routes']);
    expect(names(read())).toEqual(['sns', 'eventbridge']);
    // The PagerDuty URL is a stack tunable set with or without its secret: not a destination.
    expect(names(read({ CLOUDOPS_WATCHDOG_PAGERDUTY_URL: 'https://events.example/v2' }))).toEqual([
      'sns',
      'eventbridge',
    ]);
  });

  it.each([
    ['slack', 'CLOUDOPS_WATCHDOG_SLACK_SECRET_ID', 'watchdog/slack', 'slack notifier'],
    ['webhook', 'CLOUDOPS_WATCHDOG_WEBHOOK_URL', 'https://hooks.example/x', 'webhook notifier'],
    ['pagerduty', 'CLOUDOPS_WATCHDOG_PAGERDUTY_SECRET_ID', 'watchdog/pd', 'pagerduty notifier'],
    ['routes', 'CLOUDOPS_WATCHDOG_ROUTES', '{"routes":[]}', 'routing table'],
  ] as const)(
    'without %s, refuses %s naming it, without echoing its value',
    async (part, variable, value, noun) => {
      const read = await settingsReaderWithout([part]);
      let message = '';
      try {
        read({ [variable]: value });
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toContain(variable);
      expect(message).toContain(`deployed without the ${noun}`);
      expect(message).not.toContain(value);
    },
  );

  it('keeps the others: without Slack, the webhook still configures', async () => {
    const read = await settingsReaderWithout(['slack']);
    const settings = read({ CLOUDOPS_WATCHDOG_WEBHOOK_URL: 'https://hooks.example/x' });
    expect(names(settings)).toEqual(['sns', 'webhook', 'eventbridge']);
  });

  it('unbundled (no switch set) every notifier is there, Slack included', async () => {
    const read = await settingsReaderWithout([]);
    const settings = read({ CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL: 'https://hooks.example/s' });
    expect(names(settings)).toEqual(['sns', 'slack', 'eventbridge']);
  });
});

describe('the variables refused are the ones that configure each notifier', () => {
  it.each(['slack', 'webhook', 'pagerduty'] as const)('%s', (part) => {
    const notifier = NOTIFIERS.find((n) => n.name === part)!;
    const variables = Object.keys(notifier.env.shape);
    const listed = Object.keys(refusedVariables(part));
    expect(variables).toEqual(expect.arrayContaining([...listed]));
    // Any variable not listed configures nothing on its own.
    const parsed = notifier.env.parse(
      Object.fromEntries(
        variables.filter((v) => !listed.includes(v)).map((v) => [v, 'https://x.example/v2']),
      ),
    );
    expect(notifier.settings(parsed as never)).toBeUndefined();
  });
});

describe('unbundled, the registry carries every notifier', () => {
  it('each one of NOTIFIERS is configured when its variables are set', async () => {
    const read = await settingsReaderWithout([]);
    const settings = read({
      CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL: 'https://hooks.example/s',
      CLOUDOPS_WATCHDOG_WEBHOOK_URL: 'https://hooks.example/w',
      CLOUDOPS_WATCHDOG_PAGERDUTY_ROUTING_KEY: 'a'.repeat(32),
    });
    expect(names(settings)).toEqual(NOTIFIERS.map((n) => n.name));
  });
});
