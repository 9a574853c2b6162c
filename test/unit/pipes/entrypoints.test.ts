/**
 * The CLI command and the Lambda consumer, end to end against the sandbox over HTTP
 * (state in a temp file / in dynalite, notifications to a local webhook receiver).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  CreateSecretCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pipesCommand } from '../../../cli/commands/pipes';
import { sandboxEnv } from '../../../cli/connect';
import type { CliIO } from '../../../cli/io';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createConsumerHandler } from '../../../functions/pipe-watchdog/consumer';
import { ConfigError } from '../../../lib/errors';
import { verifyAsDocumented } from '../../support/webhook-signature';
import { readWatchdogSettings } from '../../../lib/pipes/config';
import { createWatchTable } from '../../../lib/watch/dynamo-store';
import { startLocalDynamo, type LocalDynamo } from '../../support/local-dynamo';
import { startSandbox, type Sandbox } from '../../../sandbox/index';
import { classifyState, parseClassifyOptions } from '../../../lib/pipes/classify';
import { startReceiver } from '../../support/receiver';

let sb: Sandbox;
let dynamo: LocalDynamo;
let dir: string;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const SIGNING = 'entrypoint-signing-secret-123';
/** A control (newline excepted), DEL, C1 or bidi control: nothing a terminal should be sent. */
// eslint-disable-next-line no-control-regex -- looking for control characters
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

beforeAll(async () => {
  sb = await startSandbox({
    profile: 'spec',
    port: 0,
    rateLimits: { management: { limit: 10_000, windowMs: 1_000 } },
  });
  dynamo = await startLocalDynamo();
  receiver = await startReceiver();
  dir = mkdtempSync(path.join(tmpdir(), 'pipes-cli-'));
});
afterAll(async () => {
  await receiver.close();
  await dynamo.close();
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}) => ({
  ...sandboxEnv(sb.info),
  CLOUDOPS_MANAGEMENT_RATE_LIMIT: '1000/1s',
  ...extra,
});

function io(vars: Record<string, string | undefined>) {
  const out: string[] = [];
  const err: string[] = [];
  const cli: CliIO = { out: (t) => out.push(t), err: (t) => err.push(t), env: vars, isTTY: false };
  return { cli, out, err };
}
const signal = new AbortController().signal;
/** Pipes a first run reports (the rest are its silent baseline). */
const problems = <P extends { id: string; state: string }>(pipes: P[]) =>
  pipes.filter((p) => classifyState(p.state, p.id, parseClassifyOptions()).severity !== undefined);

describe('cloudops pipes check', () => {
  it('--json prints checked, notifications and errors; the state file carries over between runs', async () => {
    const stateFile = path.join(dir, 'state.json');
    const vars = env({
      CLOUDOPS_WATCHDOG_WEBHOOK_URL: `${receiver.url}/hooks/pipes-check`, // a path: a bare host:port may be reused
      CLOUDOPS_WATCHDOG_WEBHOOK_SIGNING_SECRET: SIGNING,
    });
    const first = io(vars);
    expect(
      await pipesCommand.run(['check', '--json', '--state-file', stateFile], first.cli, signal),
    ).toBe(0);
    const one = JSON.parse(first.out.join('')) as {
      checked: number;
      notifications: { kind: string; pipeId: string }[];
      errors: unknown[];
    };
    expect(one.checked).toBe(sb.store.state.pipes.length);
    expect(one.notifications.every((n) => n.kind === 'new')).toBe(true);
    expect(one.errors).toEqual([]);
    expect(receiver.received).toHaveLength(one.notifications.length);

    const kafka = sb.info.pipeIds[0];
    sb.setPipeState(kafka, 'Failed');
    const second = io(vars);
    expect(
      await pipesCommand.run(['check', '--json', '--state-file', stateFile], second.cli, signal),
    ).toBe(0);
    const two = JSON.parse(second.out.join('')) as { notifications: Record<string, string>[] };
    expect(two.notifications).toEqual([
      expect.objectContaining({
        kind: 'transition',
        severity: 'critical',
        pipeId: kafka,
        from: 'Running',
        to: 'Failed',
        serviceId: sb.info.serviceId,
      }),
    ]);
    sb.setPipeState(kafka, 'Running');
  });

  it('human output and exit code 1 when a service cannot be listed', async () => {
    const stateFile = path.join(dir, 'human.json');
    sb.faults.queue({
      route: `GET /v1/organizations/.*/services/${sb.info.serviceIds[1]}/pipes`,
      kind: '500',
      count: 20,
    });
    const r = io(env({ CLOUDOPS_WATCHDOG_API_DEADLINE_MS: '300' }));
    const started = Date.now();
    expect(await pipesCommand.run(['check', '--state-file', stateFile], r.cli, signal)).toBe(1);
    expect(Date.now() - started).toBeLessThan(5_000);
    const text = r.out.join('\n');
    // A first run is a baseline: healthy pipes are recorded silently, problems are told.
    expect(text).not.toMatch(/new orders-kafka/);
    expect(text).toMatch(/\[CRITICAL\] new events-object-storage .*: Failed/);
    expect(text).toMatch(/error \(list\) service .* 500/);
    expect(text).toMatch(/checked 4 pipes: 2 notifications, 1 errors/);
    expect(text).not.toContain(sb.info.keySecret);
    sb.faults.clear();
  });

  it('a hostile pipe name reaches the terminal without escape sequences or bidi controls; --json keeps it raw', async () => {
    const pipe = sb.store.pipe(sb.info.pipeIds[0])!;
    const saved = pipe.name;
    const hostile = '<!channel> \u001b[2J\u001b]0;owned\u0007orders\u202etxt.exe\nchecked 0 pipes';
    pipe.name = hostile;
    sb.store.changed();
    try {
      const stateFile = path.join(dir, 'hostile.json');
      sb.setPipeState(pipe.id, 'Failed');
      const human = io(env());
      await pipesCommand.run(['check', '--state-file', stateFile], human.cli, signal);
      const text = human.out.join('\n');
      expect(text).toContain('<!channel> orderstxt.exe checked 0 pipes');
      expect(text).not.toMatch(UNSAFE);
      expect(text.split('\n').filter((l) => l.startsWith('checked '))).toHaveLength(1);

      sb.setPipeState(pipe.id, 'Running');
      const machine = io(env());
      await pipesCommand.run(['check', '--json', '--state-file', stateFile], machine.cli, signal);
      const out = JSON.parse(machine.out.join('')) as { notifications: { pipeName: string }[] };
      expect(out.notifications.map((n) => n.pipeName)).toEqual([hostile]);
    } finally {
      pipe.name = saved;
      sb.setPipeState(pipe.id, 'Running');
    }
  });

  it('a Slack URL configured with an upper-case host never shows in the --json output', async () => {
    const token = 'Xy7Kq2Lm9Pw4Rt8Vb3Nz6Hs1';
    const r = io(
      env({ CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL: `http://LOCALHOST:1/services/T1/B1/${token}` }),
    );
    const stateFile = path.join(dir, 'leak.json');
    expect(
      await pipesCommand.run(['check', '--json', '--state-file', stateFile], r.cli, signal),
    ).toBe(1);
    const out = JSON.parse(r.out.join('')) as { errors: { stage: string; message: string }[] };
    expect(out.errors.filter((e) => e.stage === 'notify').length).toBeGreaterThan(0);
    expect(r.out.join('')).not.toContain(token);
    expect(r.out.join('').toLowerCase()).not.toContain('/services/t1/b1');
  });

  it('usage errors name the flag; missing settings name the variable', async () => {
    await expect(pipesCommand.run(['check', '--jsn'], io(env()).cli, signal)).rejects.toThrow(
      /jsn/,
    );
    await expect(pipesCommand.run(['frobnicate'], io(env()).cli, signal)).rejects.toThrow(
      /unknown subcommand/,
    );
    await expect(
      pipesCommand.run(['check'], io({ CLOUDOPS_API_URL: sb.info.apiUrl }).cli, signal),
    ).rejects.toThrow(/CLOUDOPS_ORGANIZATION_ID, CLOUDOPS_SERVICE_ID/);
  });
});

describe('watchdog settings from env', () => {
  it('maps variables to the config and rejects bad values by name', () => {
    const s = readWatchdogSettings(
      env({
        CLOUDOPS_WATCHDOG_STUCK_MINUTES: '45',
        CLOUDOPS_WATCHDOG_EXPECTED_STOPPED: 'a, b',
        CLOUDOPS_WATCHDOG_AUTO_RESTART: 'true',
        CLOUDOPS_WATCHDOG_TABLE: 't',
      }),
    );
    expect(s.watchdog).toMatchObject({
      serviceIds: sb.info.serviceIds,
      policy: { stuckAfterMs: 45 * 60_000, expectedStopped: ['a', 'b'] },
      autoRestart: { enabled: true },
    });
    expect(s.tableName).toBe('t');
    const bad = () =>
      readWatchdogSettings(
        env({
          CLOUDOPS_WATCHDOG_FLAP_MAX_CHANGES: 'lots',
          CLOUDOPS_WATCHDOG_WEBHOOK_SIGNING_SECRET: 'short',
        }),
      );
    expect(bad).toThrow(/CLOUDOPS_WATCHDOG_FLAP_MAX_CHANGES/);
    expect(bad).toThrow(/CLOUDOPS_WATCHDOG_WEBHOOK_SIGNING_SECRET: expected at least 16/);
  });
});

/**
 * The watchdog's consumer as deployed (the scheduled function only enqueues), fed one message
 * of every configured service per call, each a new run: what a scheduled run makes it do. Its
 * summary is the run's EMF line (what CloudWatch gets) and the messages it failed.
 */
function scheduledRuns(options: Parameters<typeof createConsumerHandler>[0] & { env: Env }) {
  const lines: string[] = [];
  const consume = createConsumerHandler({
    sqs: new SQSClient({ region: 'us-east-1' }),
    metricsSink: (line) => lines.push(line),
    ...options,
    env: { CLOUDOPS_WATCHDOG_QUEUE_URL: QUEUE_URL, ...options.env },
  });
  const message = () => ({
    runId: randomUUID(),
    organizationId: options.env.CLOUDOPS_ORGANIZATION_ID,
    serviceIds: options.env.CLOUDOPS_SERVICE_ID!.split(','),
    scheduledAt: Date.now(),
  });
  return {
    lines,
    run: async () => {
      const before = lines.length;
      const out = await consume(
        { Records: [{ messageId: 'm-1', body: JSON.stringify(message()) }] },
        {} as Context,
      );
      const emf = lines.slice(before).map((l) => JSON.parse(l) as Record<string, number>);
      expect(emf).toHaveLength(1);
      return {
        checked: emf[0].PipesChecked,
        notifications: emf[0].Notifications,
        errors: emf[0].ApiErrors + emf[0].NotifyErrors,
        failed: out.batchItemFailures,
      };
    },
  };
}
type Env = Record<string, string | undefined>;
const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/000000000000/watchdog';

describe('pipe-watchdog handler', () => {
  it('runs a pass with state in DynamoDB and emits one EMF line', async () => {
    const { run, lines } = scheduledRuns({
      env: env({ CLOUDOPS_WATCHDOG_TABLE: dynamo.tableName }),
      dynamo: dynamo.client,
    });
    const summary = await run();
    // First run: a silent baseline of the healthy pipes; the ones in trouble are told.
    expect(summary).toEqual({
      checked: sb.store.state.pipes.length,
      notifications: problems(sb.store.state.pipes).length,
      errors: 0,
      failed: [],
    });
    const again = await run();
    expect(again.notifications).toBe(0);
    expect(lines).toHaveLength(2);
  });

  it('takes the key from Secrets Manager through middy when CLOUDOPS_KEY_SECRET_ID is set', async () => {
    const vars: Env = {
      ...env({
        CLOUDOPS_WATCHDOG_TABLE: dynamo.tableName,
        CLOUDOPS_KEY_SECRET_ID: sb.info.keySecretId,
      }),
      CLOUDOPS_KEY_ID: undefined,
      CLOUDOPS_KEY_SECRET: undefined,
      CLOUDOPS_SERVICE_ID: sb.info.serviceIds[1],
    };
    const secretsManager = new SecretsManagerClient({
      endpoint: sb.info.secretsManagerUrl,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    sb.requestLog.clear();
    const { run } = scheduledRuns({ env: vars, dynamo: dynamo.client, secretsManager });
    const summary = await run();
    expect(summary.errors).toBe(0);
    expect(summary.checked).toBe(
      sb.store.state.pipes.filter((p) => p.serviceId === sb.info.serviceIds[1]).length,
    );
    expect(sb.requestLog.entries().some((e) => e.operation === 'GetSecretValue')).toBe(true);
    secretsManager.destroy();
  });

  it('fails fast naming the missing table or queue', () => {
    const consumer = (vars: Env) => () => createConsumerHandler({ env: vars });
    expect(consumer(env({ CLOUDOPS_WATCHDOG_QUEUE_URL: QUEUE_URL }))).toThrow(ConfigError);
    expect(consumer(env({ CLOUDOPS_WATCHDOG_QUEUE_URL: QUEUE_URL }))).toThrow(
      /CLOUDOPS_WATCHDOG_TABLE/,
    );
    expect(consumer(env({ CLOUDOPS_WATCHDOG_TABLE: 't' }))).toThrow(/CLOUDOPS_WATCHDOG_QUEUE_URL/);
  });
});

describe('pipe-watchdog handler: Slack and webhook destinations from Secrets Manager', () => {
  it('reads them at run time by secret id, caches them, and re-reads a Slack URL the receiver rejects', async () => {
    const service = sb.info.serviceIds[1];
    const pipes = sb.store.state.pipes.filter((p) => p.serviceId === service);
    // Slack takes the first run's messages, then rejects the old URL once.
    const told = problems(pipes);
    expect(told.length).toBeGreaterThan(0);
    const healthy = pipes.find((p) => !told.includes(p))!;
    const healthyState = healthy.state;
    const slack = await startReceiver([...told.map(() => 200), 404]);
    const hook = await startReceiver();
    const secretsManager = new SecretsManagerClient({
      endpoint: sb.info.secretsManagerUrl,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    try {
      const put = (Name: string, value: object) =>
        secretsManager.send(new CreateSecretCommand({ Name, SecretString: JSON.stringify(value) }));
      await put('watchdog/slack', { url: `${slack.url}/services/T1/B1/old-slack-token` });
      await put('watchdog/webhook', { url: `${hook.url}/hook`, signingSecret: SIGNING });
      const tableName = 'watchdog-secrets-test';
      await createWatchTable(dynamo.client, tableName);
      const { run } = scheduledRuns({
        env: env({
          CLOUDOPS_SERVICE_ID: service,
          CLOUDOPS_WATCHDOG_TABLE: tableName,
          CLOUDOPS_WATCHDOG_SLACK_SECRET_ID: 'watchdog/slack',
          CLOUDOPS_WATCHDOG_WEBHOOK_SECRET_ID: 'watchdog/webhook',
        }),
        dynamo: dynamo.client,
        secretsManager,
      });
      const reads = () =>
        sb.requestLog.entries().filter((e) => e.operation === 'GetSecretValue').length;

      sb.requestLog.clear();
      const first = await run();
      expect(first).toEqual({
        checked: pipes.length,
        notifications: told.length,
        errors: 0,
        failed: [],
      });
      // Each destination's secret: read once, then cached (the key is given in env here).
      expect(reads()).toBe(2);
      expect(hook.received).toHaveLength(told.length);
      for (const r of hook.received) {
        expect(r.path).toBe('/hook');
        expect(verifyAsDocumented(String(r.headers['x-cloudops-signature']), r.body, SIGNING)).toBe(
          true,
        );
      }

      // Someone replaces the Slack URL; the function still holds the old one.
      await secretsManager.send(
        new PutSecretValueCommand({
          SecretId: 'watchdog/slack',
          SecretString: JSON.stringify({ url: `${slack.url}/services/T1/B1/new-slack-token` }),
        }),
      );
      sb.setPipeState(healthy.id, 'Failed');
      sb.requestLog.clear();
      const second = await run();
      expect(second).toEqual({ checked: pipes.length, notifications: 1, errors: 0, failed: [] });
      expect(reads()).toBe(1); // only the rejected Slack secret, re-read
      expect(slack.received.map((r) => r.path.split('/').pop())).toEqual([
        ...told.map(() => 'old-slack-token'),
        'old-slack-token',
        'new-slack-token',
      ]);
      expect(hook.received).toHaveLength(told.length + 1);
    } finally {
      sb.setPipeState(healthy.id, healthyState);
      secretsManager.destroy();
      await slack.close();
      await hook.close();
    }
  });

  it('a secret id and values in env for the same destination is a configuration error', () => {
    expect(() =>
      readWatchdogSettings(
        env({
          CLOUDOPS_WATCHDOG_SLACK_SECRET_ID: 'watchdog/slack',
          CLOUDOPS_WATCHDOG_SLACK_WEBHOOK_URL: 'https://hooks.example/services/x',
        }),
      ),
    ).toThrow(/CLOUDOPS_WATCHDOG_SLACK_SECRET_ID or its values in env/);
  });
});
