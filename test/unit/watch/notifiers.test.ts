import 'aws-sdk-client-mock-vitest/extend';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { PublishCommand, SNSClient, type PublishCommandInput } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { createHmac } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pipeStateChangedDetail, pipeStateChangedEvent } from '../../../lib/events/schemas';
import { redactText } from '../../../lib/redact';
import { createEventBridgeNotifier } from '../../../lib/watch/notifiers/eventbridge';
import { createSlackNotifier } from '../../../lib/watch/notifiers/slack';
import { createSnsNotifier, snsNotifier } from '../../../lib/watch/notifiers/sns';
import { NotifyError } from '../../../lib/watch/notifiers/types';
import { createWebhookNotifier } from '../../../lib/watch/notifiers/webhook';
import { pipeNotice } from '../../../lib/watch/subjects/pipe';
import type { ServiceNotice } from '../../../lib/watch/subjects/service';
import { driftNotice, failedPipeNotice, renderAny } from '../../support/notices';
import { startReceiver } from '../../support/receiver';
import { verifyAsDocumented } from '../../support/webhook-signature';

const n = failedPipeNotice();
const drift = driftNotice();
const service: ServiceNotice = {
  subject: 'service',
  id: 'org-1/svc-1/-/idle/1',
  dedupKey: 'service/org-1/svc-1/idle',
  resolves: false,
  kind: 'idle',
  severity: 'info',
  organizationId: 'org-1',
  serviceId: 'svc-1',
  from: '',
  to: 'idle',
  at: '2025-01-01T00:05:00.000Z',
  since: '2025-01-01T00:05:00.000Z',
  message: 'Service svc-1 is idle; its pipes are not checked until it is active again',
};
const noSleep = { sleep: async () => {}, timeoutMs: 500 };
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
async function receiver(statuses: number[] = []) {
  const r = await startReceiver(statuses);
  closers.push(r.close);
  return r;
}
/** A loopback server answering every request with a 307 to `location`. */
async function redirector(location: string) {
  let hits = 0;
  const server = createServer((req, res) => {
    hits += 1;
    req.resume();
    res.writeHead(307, { location }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    hits: () => hits,
  };
}

describe('webhook notifier', () => {
  it('posts the notification as JSON with a verifiable HMAC signature', async () => {
    const r = await receiver();
    const secret = 'whsec-test-signing-secret';
    const now = Date.parse('2025-01-01T00:05:00.250Z');
    await createWebhookNotifier({
      render: renderAny,
      url: `${r.url}/hook`,
      signingSecret: secret,
      now: () => now,
      ...noSleep,
    }).send(n);
    expect(r.received).toHaveLength(1);
    const { body, headers, path } = r.received[0];
    expect(path).toBe('/hook');
    expect(headers['content-type']).toBe('application/json');
    expect(JSON.parse(body)).toEqual({
      type: 'Pipe State Changed',
      notification: n,
      hint: "check the pipe's source credentials and the destination table; `cloudops pipes get pipe-1`",
    });
    // Stripe's scheme: the unix time, and the HMAC of "<time>.<body>".
    const t = Math.floor(now / 1000);
    const v1 = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    expect(headers['x-cloudops-signature']).toBe(`t=${t},v1=${v1}`);
    expect(redactText(`x ${secret} y`)).not.toContain(secret); // registered for redaction
  });

  it('a receiver checking as README.md shows accepts the request, and refuses it replayed 5+ minutes later or with its body changed', async () => {
    const secret = 'whsec-verified-signing-secret';
    let receiverNow = Date.now();
    const seen: { signature: string; body: string; ok: boolean }[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const signature = String(req.headers['x-cloudops-signature'] ?? '');
        const ok = verifyAsDocumented(signature, body, secret, receiverNow);
        seen.push({ signature, body, ok });
        res.writeHead(ok ? 200 : 400).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

    await createWebhookNotifier({ render: renderAny, url, signingSecret: secret, ...noSleep }).send(
      n,
    );
    // Someone who captured that request sends it again.
    const [{ signature, body }] = seen;
    const replay = (text: string) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-cloudops-signature': signature },
        body: text,
      }).then((r) => r.status);
    expect(await replay(body.replace('Failed', 'Running'))).toBe(400); // tampered
    receiverNow += 5 * 60_000 + 1_000;
    expect(await replay(body)).toBe(400); // replayed later
    expect(seen.map((r) => r.ok)).toEqual([true, false, false]);
  });

  it('sends no signature without a secret', async () => {
    const r = await receiver();
    await createWebhookNotifier({ render: renderAny, url: r.url, ...noSleep }).send(n);
    expect(r.received[0].headers['x-cloudops-signature']).toBeUndefined();
  });

  it('retries 5xx and succeeds; sends the same body each time', async () => {
    const r = await receiver([500, 503]);
    await createWebhookNotifier({ render: renderAny, url: r.url, ...noSleep }).send(n);
    expect(r.received).toHaveLength(3);
    expect(new Set(r.received.map((x) => x.body)).size).toBe(1);
  });

  it('gives up after the attempts with a NotifyError naming the status', async () => {
    const r = await receiver([500, 500, 500]);
    const error = await createWebhookNotifier({ render: renderAny, url: r.url, ...noSleep })
      .send(n)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotifyError);
    expect((error as NotifyError).message).toMatch(/webhook: gave up after 3 attempts.*500/);
  });

  it('does not retry a 400', async () => {
    const r = await receiver([400]);
    await expect(
      createWebhookNotifier({ render: renderAny, url: r.url, ...noSleep }).send(n),
    ).rejects.toThrow(/answered 400/);
    expect(r.received).toHaveLength(1);
  });

  it('never follows a redirect: a 3xx is a failed delivery naming the status, sent nowhere else', async () => {
    const elsewhere = await receiver();
    const redirecting = await redirector(`${elsewhere.url}/stolen`);
    const signingSecret = 'whsec-redirect-signing-secret';
    const error = await createWebhookNotifier({
      render: renderAny,
      url: redirecting.url,
      signingSecret,
      ...noSleep,
    })
      .send(n)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotifyError);
    expect((error as NotifyError).message).toMatch(/webhook: receiver answered 307, a redirect/);
    expect((error as NotifyError).status).toBe(307);
    expect(redirecting.hits()).toBe(1); // not retried either
    expect(elsewhere.received).toHaveLength(0);
  });

  it('times out a hanging receiver and retries', async () => {
    const r = await receiver([0]);
    await createWebhookNotifier({
      render: renderAny,
      url: r.url,
      sleep: async () => {},
      timeoutMs: 100,
    }).send(n);
    expect(r.received).toHaveLength(2);
  });

  it('reports a connection failure without the URL', async () => {
    const r = await receiver();
    await r.close();
    const error = (await createSlackNotifier({
      render: renderAny,
      webhookUrl: `${r.url}/services/T000/B000/XXXXsecret`,
      ...noSleep,
      attempts: 2,
    })
      .send(n)
      .catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(NotifyError);
    expect(error.message).not.toContain('XXXXsecret');
  });
});

describe('slack notifier', () => {
  it('posts Block Kit with state change, pipe, service, since and a link', async () => {
    const r = await receiver();
    await createSlackNotifier({
      render: renderAny,
      webhookUrl: `${r.url}/services/T1/B1/slacktokenvalue`,
      linkTemplate:
        'https://console.example/org/{organizationId}/services/{serviceId}/pipes/{pipeId}',
      ...noSleep,
    }).send(n);
    const payload = JSON.parse(r.received[0].body) as {
      text: string;
      blocks: Record<string, unknown>[];
    };
    expect(payload.text).toContain('orders');
    const text = JSON.stringify(payload.blocks);
    expect(text).toContain('Running* → *Failed');
    expect(text).toContain('orders (`pipe-1`)');
    expect(text).toContain('`svc-1`');
    expect(text).toContain('*Since*');
    expect(text).toContain(n.since);
    expect(payload.blocks.at(-1)).toMatchObject({
      type: 'actions',
      elements: [{ url: 'https://console.example/org/org-1/services/svc-1/pipes/pipe-1' }],
    });
    expect(payload.blocks[0]).toMatchObject({ type: 'header' });
    expect(redactText(`${r.url}/services/T1/B1/slacktokenvalue`)).not.toContain('slacktokenvalue');
  });
  it('renders each subject its own way: a drift shows its plan and no link, a service no pipe', async () => {
    const r = await receiver();
    const slack = createSlackNotifier({
      render: renderAny,
      webhookUrl: `${r.url}/services/T1/B1/slacksubjecttoken`,
      linkTemplate: 'https://console.example/{serviceId}/pipes/{pipeId}',
      ...noSleep,
    });
    await slack.send(drift);
    await slack.send(service);
    const [d, sv] = r.received.map(
      (x) => JSON.parse(x.body) as { blocks: { type: string; text?: { text: string } }[] },
    );
    expect(d.blocks[0].text?.text).toBe(
      '[WARNING] dashboards of prod transition: InSync -> Drifted',
    );
    expect(d.blocks.some((b) => b.text?.text === drift.markdown)).toBe(true);
    expect(d.blocks.some((b) => b.type === 'actions')).toBe(false);
    expect(sv.blocks[0].text?.text).toBe('[INFO] service svc-1 idle: idle');
    expect(JSON.stringify(sv.blocks)).not.toContain('*Pipe*');
    // The template needs a pipe id a service's notice has not: no half-filled link.
    expect(sv.blocks.some((b) => b.type === 'actions')).toBe(false);
  });

  it('a notice explains itself: condition, since when, source kind, the last two readings and the rate, the first check', async () => {
    const r = await receiver();
    await createSlackNotifier({
      render: renderAny,
      webhookUrl: `${r.url}/services/T1/B1/slackexplaintoken`,
      ...noSleep,
    }).send(
      failedPipeNotice({
        kind: 'reminder',
        sourceKind: 'kafka',
        progress: {
          metric: 'ClickPipes_SentEvents_Total',
          readings: [
            { at: '2025-01-01T00:00:00.000Z', value: 1200 },
            { at: '2025-01-01T00:05:00.000Z', value: 1200 },
          ],
          ratePerMinute: 0,
        },
      }),
    );
    const text = JSON.stringify((JSON.parse(r.received[0].body) as { blocks: unknown }).blocks);
    expect(text).toContain('[CRITICAL] pipe orders reminder: Running -> Failed');
    expect(text).toContain('*Since*');
    expect(text).toContain('*Source*\\nkafka');
    expect(text).toContain(
      '*Progress*\\nClickPipes_SentEvents_Total: 1200 at 2025-01-01T00:00:00.000Z → 1200 at 2025-01-01T00:05:00.000Z (0/min)',
    );
    expect(text).toContain(
      "*First check:* check the pipe's source credentials and the destination table; `cloudops pipes get pipe-1`",
    );
  });
});

describe('sns notifier', () => {
  it('publishes subject, JSON body and filterable attributes', async () => {
    const sns = mockClient(SNSClient);
    sns.on(PublishCommand).resolves({ MessageId: 'm1' });
    await createSnsNotifier({
      render: renderAny,
      client: new SNSClient({ region: 'us-east-1' }),
      topicArn: 'arn:aws:sns:us-east-1:1:t',
    }).send(n);
    expect(sns).toHaveReceivedCommandTimes(PublishCommand, 1);
    expect(sns).toHaveReceivedCommandWith(PublishCommand, {
      TopicArn: 'arn:aws:sns:us-east-1:1:t',
      Subject: '[CRITICAL] pipe orders transition: Running -> Failed',
      Message: JSON.stringify({
        ...n,
        hint: "check the pipe's source credentials and the destination table; `cloudops pipes get pipe-1`",
      }),
      MessageAttributes: expect.objectContaining({
        severity: { DataType: 'String', StringValue: 'critical' },
        kind: { DataType: 'String', StringValue: 'transition' },
      }) as PublishCommandInput['MessageAttributes'],
    });
    sns.restore();
  });

  it('keeps the subject printable ASCII (an SNS rule)', async () => {
    const sns = mockClient(SNSClient);
    sns.on(PublishCommand).resolves({ MessageId: 'm1' });
    await createSnsNotifier({
      render: renderAny,
      client: new SNSClient({ region: 'us-east-1' }),
      topicArn: 'arn:t',
    }).send(failedPipeNotice({ pipeName: 'bestellungen-größe\n' }));
    expect(sns).toHaveReceivedCommandWith(PublishCommand, {
      Subject: '[CRITICAL] pipe bestellungen-gr??e? transition: Running -> Failed',
    });
    sns.restore();
  });

  it('wraps a failure in a NotifyError', async () => {
    const sns = mockClient(SNSClient);
    sns.on(PublishCommand).rejects(new Error('throttled'));
    await expect(
      createSnsNotifier({
        render: renderAny,
        client: new SNSClient({ region: 'us-east-1' }),
        topicArn: 'arn:t',
      }).send(n),
    ).rejects.toThrow(/sns: publish failed: throttled/);
    sns.restore();
  });
});

describe('eventbridge notifier', () => {
  it('puts a Pipe State Changed event with the documented detail', async () => {
    const eb = mockClient(EventBridgeClient);
    eb.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e1' }] });
    await createEventBridgeNotifier({
      render: renderAny,
      client: new EventBridgeClient({ region: 'us-east-1' }),
      eventBusName: 'bus',
    }).send(n);
    expect(eb).toHaveReceivedCommandWith(PutEventsCommand, {
      Entries: [
        expect.objectContaining({
          Source: 'cloudops',
          DetailType: 'Pipe State Changed',
          EventBusName: 'bus',
        }),
      ],
    });
    const detail = JSON.parse(
      eb.commandCalls(PutEventsCommand)[0].args[0].input.Entries![0].Detail!,
    ) as object;
    expect(detail).toMatchObject({
      organizationId: 'org-1',
      serviceId: 'svc-1',
      pipeId: 'pipe-1',
      pipeName: 'orders',
      from: 'Running',
      to: 'Failed',
      severity: 'critical',
      kind: 'transition',
      at: n.at,
    });
    // The shape lib/events declares for consumers (a valid envelope), plus what explains the
    // notice (since when, the first check); none of the ledger's fields.
    const entry = eb.commandCalls(PutEventsCommand)[0].args[0].input.Entries![0];
    const event = pipeStateChangedEvent.parse({
      source: entry.Source,
      'detail-type': entry.DetailType,
      time: entry.Time!.toISOString(),
      detail,
    });
    expect(Object.keys(event.detail).sort()).toEqual(
      [...Object.keys(pipeStateChangedDetail.shape), 'since', 'hint'].sort(),
    );
    eb.restore();
  });

  it('a pipe notice is a Pipe State Changed detail plus the notice fields', () => {
    const detailFields = Object.keys(pipeStateChangedDetail.shape);
    const noticeFields = Object.keys(pipeNotice.shape);
    expect(noticeFields).toEqual(expect.arrayContaining(detailFields));
    expect(noticeFields.filter((f) => !detailFields.includes(f)).sort()).toEqual([
      'condition',
      'dedupKey',
      'id',
      'progress',
      'resolves',
      'since',
      'sourceKind',
      'subject',
    ]);
    expect(pipeStateChangedDetail.safeParse(pipeNotice.parse(n)).success).toBe(true);
  });

  it('each subject picks its event: a drift is Dashboards Drifted (the notice, its plan, as detail); a service keeps Pipe State Changed', async () => {
    const eb = mockClient(EventBridgeClient);
    eb.on(PutEventsCommand).resolves({
      FailedEntryCount: 0,
      Entries: [{ EventId: 'e1' }, { EventId: 'e2' }],
    });
    await createEventBridgeNotifier({
      render: renderAny,
      client: new EventBridgeClient({ region: 'us-east-1' }),
    }).sendBatch!([drift, service]);
    const [first, second] = eb.commandCalls(PutEventsCommand)[0].args[0].input.Entries!;
    expect(first.DetailType).toBe('Dashboards Drifted');
    expect(JSON.parse(first.Detail!)).toEqual({
      ...drift,
      hint: expect.stringContaining('`cloudops dashboards apply`') as string,
    });
    expect(second.DetailType).toBe('Pipe State Changed');
    expect(JSON.parse(second.Detail!)).toEqual({
      organizationId: 'org-1',
      serviceId: 'svc-1',
      pipeId: '',
      pipeName: '',
      from: '',
      to: 'idle',
      severity: 'info',
      kind: 'idle',
      at: service.at,
      since: service.since,
      message: service.message,
    });
    eb.restore();
  });

  it('treats a failed entry as a failure', async () => {
    const eb = mockClient(EventBridgeClient);
    eb.on(PutEventsCommand).resolves({
      FailedEntryCount: 1,
      Entries: [{ ErrorCode: 'InternalFailure', ErrorMessage: 'x' }],
    });
    await expect(
      createEventBridgeNotifier({
        render: renderAny,
        client: new EventBridgeClient({ region: 'us-east-1' }),
      }).send(n),
    ).rejects.toThrow(/event rejected: InternalFailure/);
    eb.restore();
  });
});

describe('the SNS topic variable', () => {
  it('refuses a value that is not an ARN with the message a user reads', () => {
    const env = snsNotifier.env;
    expect(env.safeParse({ CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: 'notices' }).error?.issues).toEqual([
      expect.objectContaining({
        path: ['CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN'],
        message: 'expected an SNS topic ARN',
      }),
    ]);
    expect(env.parse({ CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: 'arn:aws:sns:eu-west-1:1:t' })).toEqual({
      CLOUDOPS_WATCHDOG_SNS_TOPIC_ARN: 'arn:aws:sns:eu-west-1:1:t',
    });
  });
});
