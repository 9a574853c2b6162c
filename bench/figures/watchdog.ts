/**
 * The watchdog's figures, measured through the two Lambda handlers (the scheduled one
 * enqueues, the consumer checks), with real event shapes: the Scheduler event, SQS records from
 * a loopback SQS (bench/sqs-stub.ts) played as the event source (batch size 1), real HTTP to an
 * in-process sandbox at the real limit (10 requests per 10 s per key), DynamoDB on dynalite,
 * EventBridge through bench/aws-stubs.ts. Time is a fake clock shared by the sandbox, the
 * client's limiter, the store and the Lambda's remaining time: a limiter wait jumps it forward,
 * everything else runs in real time, so 1,000 services take seconds.
 *
 *   npx tsx bench/figures/watchdog.ts
 *
 * - watchdog_requests_s1000: management requests for 1,000 services, progress read from each
 *   service's metrics (goal 1000).
 * - watchdog_wall_over_floor_s1000: fake time from the schedule to the last delivery over the
 *   rate-limit floor (ceil(S/10) - 1) x 10 s (goal <= 1.05).
 * - watchdog_notifications_lost_on_timeout: 100 services in messages of 50 and a consumer whose
 *   Lambda has 25 s: every invocation hits its deadline; notifications never delivered (goal 0).
 */
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { RateLimiterRegistry } from '../../lib/api/rate-limiter';
import { sandboxEnv } from '../../cli/connect';
import { fakeClock } from '../fake-clock';
import { createConsumerHandler } from '../../functions/pipe-watchdog/consumer';
import { createHandler } from '../../functions/pipe-watchdog/handler';
import { startLocalDynamo } from '../../test/support/local-dynamo';
import { MANAGEMENT_RATE_LIMIT } from '../../lib/api/rate-limiter';
import { startAwsStubs } from '../aws-stubs';
import { startLimitedSandbox } from '../limited-world';
import { startSqsStub } from '../sqs-stub';
import type { Figure } from './types';

const LIMIT = MANAGEMENT_RATE_LIMIT;
const COMMAND = 'npx tsx bench/figures/watchdog.ts';

interface Scenario {
  services: number;
  failedEvery: number;
  servicesPerMessage?: number;
  /** The consumer Lambda's remaining time at the start of each invocation (fake ms). */
  lambdaMs: number;
  marginMs: number;
}

async function run(s: Scenario) {
  const fake = fakeClock();
  const sb = await startLimitedSandbox(fake);
  const dynamo = await startLocalDynamo(`watchdog-bench-${randomUUID()}`);
  const aws = await startAwsStubs();
  const sqs = await startSqsStub();
  try {
    // S services of one pipe each; every `failedEvery`-th pipe Failed (told even by a first run).
    const state = sb.store.state;
    const template = state.pipes[0];
    const serviceTemplate = state.services[0];
    const serviceIds: string[] = [];
    const failed = new Set<string>();
    for (let i = 0; i < s.services; i++) {
      const id = randomUUID();
      serviceIds.push(id);
      state.services.push({ ...structuredClone(serviceTemplate), id, name: `svc-${i}` });
      const pipeId = randomUUID();
      const bad = i % s.failedEvery === 0;
      if (bad) failed.add(pipeId);
      state.pipes.push({
        ...structuredClone(template),
        id: pipeId,
        serviceId: id,
        name: `pipe-${i}`,
        state: bad ? 'Failed' : 'Running',
      });
    }
    const awsEnv = { region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } };
    const env = {
      ...sandboxEnv({ ...sb.info, serviceIds }),
      CLOUDOPS_LOG_LEVEL: 'silent',
      CLOUDOPS_WATCHDOG_TABLE: dynamo.tableName,
      CLOUDOPS_WATCHDOG_QUEUE_URL: sqs.queueUrl,
      CLOUDOPS_WATCHDOG_EVENT_BUS: 'bench',
      CLOUDOPS_WATCHDOG_API_DEADLINE_MS: String(10 * 60_000),
      ...(s.servicesPerMessage
        ? { CLOUDOPS_WATCHDOG_SERVICES_PER_MESSAGE: String(s.servicesPerMessage) }
        : {}),
    };
    const options = {
      env,
      dynamo: dynamo.client,
      sqs: new SQSClient({ ...awsEnv, endpoint: sqs.endpoint }),
      aws: { eventBridge: new EventBridgeClient({ ...awsEnv, endpoint: aws.url }) },
      now: fake.epoch,
      metricsSink: () => {},
      clock: fake.clock,
      // One warm container: its limiter holds the key's whole budget across invocations.
      limiters: new RateLimiterRegistry(fake.clock),
    };
    const scheduled = createHandler(options);
    const consumer = createConsumerHandler({
      ...options,
      deadline: () => ({ signal: fake.timeout(s.lambdaMs - s.marginMs) }),
    });
    sb.requestLog.clear();
    const started = fake.clock.now();
    const time = new Date(fake.epoch()).toISOString();
    await scheduled(
      {
        version: '0',
        id: randomUUID(),
        'detail-type': 'Scheduled Event',
        source: 'aws.events',
        account: '000000000000',
        time,
        region: 'us-east-1',
        resources: ['arn:aws:events:us-east-1:000000000000:rule/pipe-watchdog'],
        detail: {},
      },
      { awsRequestId: randomUUID() } as Context,
    );
    let invocations = 0;
    while (sqs.depth() > 0 && invocations < 10_000) {
      invocations += 1;
      const records = sqs.receive(1);
      const until = fake.clock.now() + s.lambdaMs;
      const context = {
        awsRequestId: randomUUID(),
        getRemainingTimeInMillis: () => Math.max(0, until - fake.clock.now()),
      } as unknown as Context;
      const response = await consumer({ Records: records }, context);
      const failedIds = new Set(response.batchItemFailures.map((f) => f.itemIdentifier));
      sqs.release(records.filter((r) => failedIds.has(r.messageId)));
    }
    const wallMs = fake.clock.now() - started;
    const management = sb.requestLog.entries().filter((e) => e.surface === 'management');
    const delivered = new Set<string>();
    for (const body of aws.emitted) {
      const entries = (JSON.parse(body) as { Entries?: { Detail: string }[] }).Entries ?? [];
      for (const e of entries) delivered.add((JSON.parse(e.Detail) as { pipeId: string }).pipeId);
    }
    const lost = [...failed].filter((id) => !delivered.has(id)).length;
    return {
      requests: management.length,
      metricsReads: management.filter((e) => e.path.endsWith('/prometheus')).length,
      status429: management.filter((e) => e.status === 429).length,
      wallMs,
      floorMs: (Math.ceil(s.services / LIMIT.limit) - 1) * LIMIT.windowMs,
      lost,
      expected: failed.size,
      invocations,
    };
  } finally {
    await sqs.close();
    await aws.close();
    await dynamo.close();
    await sb.close();
  }
}

export async function measure(): Promise<Figure[]> {
  const big = await run({ services: 1000, failedEvery: 10, lambdaMs: 60_000, marginMs: 10_000 });
  const cut = await run({
    services: 100,
    failedEvery: 5,
    servicesPerMessage: 50,
    lambdaMs: 25_000,
    marginMs: 10_000,
  });
  const ratio = big.wallMs / big.floorMs;
  return [
    {
      name: 'watchdog_requests_s1000',
      value: big.requests,
      goal: '= 1000',
      met: big.requests === 1000,
      command: COMMAND,
      note: `${big.metricsReads} of them metrics reads (the rest listings); ${big.status429} answered 429; ${big.invocations} consumer invocations`,
    },
    {
      name: 'watchdog_wall_over_floor_s1000',
      value: Math.round(ratio * 1000) / 1000,
      goal: '<= 1.05',
      met: ratio <= 1.05,
      command: COMMAND,
      note: `${Math.round(big.wallMs / 1000)} s (fake clock) over a ${big.floorMs / 1000} s floor; ${big.expected} notifications, ${big.lost} lost`,
    },
    {
      name: 'watchdog_notifications_lost_on_timeout',
      value: cut.lost,
      goal: '= 0',
      met: cut.lost === 0,
      command: COMMAND,
      note: `100 services, messages of 50, 25 s Lambdas: ${cut.invocations} invocations, ${cut.expected} notifications, ${cut.requests} requests`,
    },
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(JSON.stringify(await measure(), null, 2));
}
