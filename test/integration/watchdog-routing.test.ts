/**
 * Routing per team through the watchdog, against the sandbox over HTTP: the orders team's pipes
 * go to the team's own Slack and PagerDuty (secrets in the sandbox's Secrets Manager, named by
 * the routing table), every other pipe to the default Slack; PagerDuty opens one incident when
 * the team's pipe fails and closes it with the same dedup_key when it recovers.
 */
import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { expect, it } from 'vitest';
import { readEnv } from '../../lib/config';
import { runWatchdog } from '../../lib/pipes/watchdog';
import { parseWatchdogConfig } from '../../lib/pipes/watchdog-config';
import { configuredNotifiers, notifierEnv } from '../../lib/watch/notifiers/registry';
import { createNotifiers } from '../../lib/watch/notifiers/set';
import { LocalWatchStore } from '../../lib/watch/local-store';
import { startPagerDuty } from '../support/pagerduty-receiver';
import { startReceiver } from '../support/receiver';
import { sdkClient } from '../support/secrets-manager';
import { sandboxForFile } from './watchdog-helpers';
import { renderAny } from '../support/notices';

const MIN = 60_000;
const TEAM_KEY = 'OrdersTeamIntegrationKey00000001';
const shared = sandboxForFile();

type SlackMessage = { text: string; blocks: unknown[] };
const messages = (r: Awaited<ReturnType<typeof startReceiver>>) =>
  r.received.map((x) => JSON.parse(x.body) as SlackMessage);

it("team A's Slack and PagerDuty get only team A's pipes; PagerDuty triggers, then resolves the same key", async () => {
  const { sb, client } = shared;
  const [kafka, storage] = sb.info.pipeIds as [string, string];
  const defaultSlack = await startReceiver();
  const teamSlack = await startReceiver();
  const pd = await startPagerDuty([TEAM_KEY]);
  const secretsManager = sdkClient(sb.info.secretsManagerUrl);
  try {
    const secret = (Name: string, value: object) =>
      secretsManager.send(new CreateSecretCommand({ Name, SecretString: JSON.stringify(value) }));
    await secret('team-orders/slack', { url: `${teamSlack.url}/services/T2/B2/teamordersslack` });
    await secret('team-orders/pagerduty', { routingKey: TEAM_KEY });
    const env = readEnv(notifierEnv, {
      CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL: `${defaultSlack.url}/services/T1/B1/defaultslack`,
      CLOUDOPS_WATCHDOG_PAGERDUTY_URL: pd.url,
      CLOUDOPS_WATCHDOG_LINK_TEMPLATE: 'https://console.example/{serviceId}/pipes/{pipeId}',
      CLOUDOPS_WATCHDOG_ROUTES: JSON.stringify({
        routes: [
          {
            name: 'orders',
            pipeNames: ['orders-*'],
            destinations: {
              slack: { secretId: 'team-orders/slack' },
              pagerduty: { secretId: 'team-orders/pagerduty' },
            },
            minSeverity: 'warning',
          },
        ],
      }),
    });
    const notifiers = createNotifiers(configuredNotifiers(env, renderAny), { secretsManager });
    const config = parseWatchdogConfig({
      organizationId: sb.info.organizationId,
      serviceIds: [sb.info.serviceId],
      includePipes: [kafka, storage],
    });
    const store = new LocalWatchStore();
    const run = async () => {
      const r = await runWatchdog(config, {
        api: client,
        store,
        notifiers,
        now: () => sb.clock.now(),
      });
      expect(r.errors).toEqual([]);
      sb.clock.advance(5 * MIN);
    };

    await run(); // the baseline: events-object-storage is Failed (told), orders-kafka Running
    sb.setPipeState(kafka, 'Failed');
    await run();
    sb.setPipeState(kafka, 'Running');
    await run();

    const defaults = messages(defaultSlack);
    expect(defaults.map((m) => m.text)).toEqual([
      expect.stringContaining('New pipe events-object-storage found in Failed'),
    ]);
    const team = messages(teamSlack);
    expect(team.map((m) => m.text)).toEqual([
      expect.stringContaining('Pipe orders-kafka went from Running to Failed'),
      expect.stringContaining('Pipe orders-kafka recovered'),
    ]);
    // The problem explains itself: source kind, first check, link.
    const problem = JSON.stringify(team[0].blocks);
    expect(problem).toContain('*Source*\\nkafka');
    expect(problem).toContain(`*First check:* check the pipe's source credentials`);
    expect(problem).toContain(`https://console.example/${sb.info.serviceId}/pipes/${kafka}`);

    expect(pd.accepted.map((e) => e.event_action)).toEqual(['trigger', 'resolve']);
    const [trigger, resolve] = pd.accepted;
    expect(resolve.dedup_key).toBe(trigger.dedup_key);
    expect(trigger.dedup_key).toBe(
      `pipe/${sb.info.organizationId}/${sb.info.serviceId}/${kafka}/health`,
    );
    expect(trigger.payload).toMatchObject({ severity: 'critical', component: 'orders-kafka' });
    expect([...pd.incidents.values()]).toEqual(['resolved']);
  } finally {
    secretsManager.destroy();
    await Promise.all([defaultSlack.close(), teamSlack.close(), pd.close()]);
  }
});
