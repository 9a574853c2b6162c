/**
 * A pipe named `<!channel> x` on the service (sandbox over HTTP) fails: the watchdog's Slack
 * message pages nobody (the name is escaped for mrkdwn, every mrkdwn object sent verbatim),
 * while EventBridge and the webhook carry the name exactly as the service holds it.
 */
import 'aws-sdk-client-mock-vitest/extend';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { expect, it } from 'vitest';
import { runWatchdog } from '../../lib/pipes/watchdog';
import { parseWatchdogConfig } from '../../lib/pipes/watchdog-config';
import { createEventBridgeNotifier } from '../../lib/watch/notifiers/eventbridge';
import { createSlackNotifier } from '../../lib/watch/notifiers/slack';
import { createWebhookNotifier } from '../../lib/watch/notifiers/webhook';
import { LocalWatchStore } from '../../lib/watch/local-store';
import { startReceiver } from '../support/receiver';
import { sandboxForFile } from './watchdog-helpers';
import { renderAny } from '../support/notices';

const NAME = '<!channel> x';
const shared = sandboxForFile();

/** Every mrkdwn text object of a Block Kit message. */
function mrkdwnObjects(value: unknown): { text: string; verbatim?: boolean }[] {
  if (Array.isArray(value)) return value.flatMap(mrkdwnObjects);
  if (value === null || typeof value !== 'object') return [];
  const object = value as Record<string, unknown>;
  const own = object.type === 'mrkdwn' ? [object as { text: string; verbatim?: boolean }] : [];
  return [...own, ...Object.values(object).flatMap(mrkdwnObjects)];
}

it('a pipe named `<!channel> x`: Slack text escaped, the EventBridge detail and the webhook raw', async () => {
  const { sb, client } = shared;
  const pipeId = sb.info.pipeIds[0];
  const pipe = sb.store.pipe(pipeId)!;
  pipe.name = NAME;
  sb.setPipeState(pipeId, 'Failed');
  const slackReceiver = await startReceiver();
  const hookReceiver = await startReceiver();
  const eventBridge = mockClient(EventBridgeClient);
  eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e1' }] });
  try {
    const notifiers = [
      createSlackNotifier({
        render: renderAny,
        webhookUrl: `${slackReceiver.url}/services/T1/B1/escapetoken`,
      }),
      createWebhookNotifier({ render: renderAny, url: `${hookReceiver.url}/hook` }),
      createEventBridgeNotifier({
        render: renderAny,
        client: new EventBridgeClient({ region: 'us-east-1' }),
      }),
    ];
    const config = parseWatchdogConfig({
      organizationId: sb.info.organizationId,
      serviceIds: [sb.info.serviceId],
      includePipes: [pipeId],
    });
    const result = await runWatchdog(config, {
      api: client,
      store: new LocalWatchStore(),
      notifiers,
      now: () => sb.clock.now(),
    });
    expect(result.errors).toEqual([]);
    expect(result.notifications).toHaveLength(1); // a problem is told even by a first run

    const slack = JSON.parse(slackReceiver.received[0].body) as { text: string; blocks: unknown };
    const sent = JSON.stringify(slack);
    expect(sent).not.toContain('<!channel>');
    expect(slack.text).toContain('&lt;!channel&gt; x');
    const objects = mrkdwnObjects(slack.blocks);
    expect(objects.length).toBeGreaterThan(0);
    expect(objects.every((o) => o.verbatim === true)).toBe(true);
    expect(objects.some((o) => o.text.includes('&lt;!channel&gt; x'))).toBe(true);

    const entries = eventBridge.commandCalls(PutEventsCommand)[0].args[0].input.Entries!;
    expect((JSON.parse(entries[0].Detail!) as { pipeName: string }).pipeName).toBe(NAME);
    const hook = JSON.parse(hookReceiver.received[0].body) as {
      notification: { pipeName: string };
    };
    expect(hook.notification.pipeName).toBe(NAME);
  } finally {
    eventBridge.restore();
    await slackReceiver.close();
    await hookReceiver.close();
  }
});
