/**
 * `cloudops pipes list | get | start | stop | resync` in-process against the sandbox over HTTP:
 * what the person paged reads, what is said instead of calling, the question on a terminal, and
 * the exit codes the help promises.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../../cli/connect';
import type { CliIO } from '../../cli/io';
import { pipesCommand } from '../../cli/commands/pipes';
import type { ServiceView } from '../../lib/pipes/view';
import type { Sandbox } from '../../sandbox/index';
import { runCapture } from '../support/cli';
import { admin } from '../support/sandbox-http';
import { startTestSandbox } from '../support/sandbox';

let sb: Sandbox;
let dir: string;
let env: Record<string, string>;
let kafka: string;
let postgres: string;

beforeAll(async () => {
  sb = await startTestSandbox({ profile: 'current' });
  dir = mkdtempSync(path.join(tmpdir(), 'cloudops-pipes-'));
  env = {
    ...sandboxEnv(sb.info),
    CLOUDOPS_LOG_LEVEL: 'silent',
    // The client's pacing is tested elsewhere; here it would only slow every run down.
    CLOUDOPS_MANAGEMENT_RATE_LIMIT: '1000/1s',
  };
  kafka = sb.info.pipeIds[0];
  postgres = sb.store.state.pipes.find((p) => p.name === 'users-postgres-cdc')!.id;
});
afterAll(async () => {
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  sb.setPipeState(kafka, 'Running');
  sb.setPipeState(postgres, 'Provisioning');
  sb.requestLog.clear();
});

const pipes = (args: string[], extra: Record<string, string> = {}) =>
  runCapture(['pipes', ...args], { env: { ...env, ...extra } });
const management = () => sb.requestLog.entries().filter((e) => e.surface === 'management');
const writes = () => management().filter((e) => e.method !== 'GET');

/** The command in-process as on a terminal, answering its question with `answer`. */
async function onTerminal(args: string[], answer: string) {
  let stdout = '';
  let stderr = '';
  const asked: string[] = [];
  const io: CliIO = {
    out: (t) => void (stdout += `${t}\n`),
    err: (t) => void (stderr += `${t}\n`),
    env,
    isTTY: true,
    stdinIsTTY: true,
  };
  const code = await pipesCommand.runWith(args, io, new AbortController().signal, (q) => {
    asked.push(q);
    return Promise.resolve(answer);
  });
  return { code, stdout, stderr, asked };
}

describe('pipes list', () => {
  it('reads each service once (its metrics) and shows every pipe; the idle one is said idle', async () => {
    const run = await pipes(['list', '--state-file', path.join(dir, 'none.json')]);
    expect(run.code).toBe(0);
    expect(management().map((e) => e.path.split('/').at(-1))).toEqual(
      sb.info.serviceIds.map(() => 'prometheus'),
    );
    expect(run.stdout).toMatch(/orders-kafka +Running/);
    expect(run.stdout).toMatch(/users-postgres-cdc +Provisioning/);
    const idle = sb.store.state.services.find((s) => s.state === 'idle')!.id;
    expect(run.stdout).toContain(`service ${idle}: idle`);
  });

  it('with the state `pipes check` keeps: since when, rates and the open conditions', async () => {
    const stateFile = path.join(dir, 'state.json');
    await admin(sb, 'PUT', `/pipes/${kafka}/flow`, { errorsPerMinute: 10 });
    try {
      const args = ['--state-file', stateFile];
      expect((await pipes(['check', ...args])).code).toBe(0);
      sb.clock.advance(5 * 60_000);
      expect((await pipes(['check', ...args])).code).toBe(0);
      const run = await pipes(['list', '--json', '--service', sb.info.serviceId, ...args]);
      expect(run.code).toBe(0);
      const { services } = JSON.parse(run.stdout) as { services: ServiceView[] };
      expect(services.map((s) => [s.serviceId, s.read])).toEqual([[sb.info.serviceId, 'metrics']]);
      const orders = services[0].pipes.find((p) => p.pipeId === kafka)!;
      expect(orders).toMatchObject({
        name: 'orders-kafka',
        state: 'Running',
        sourceKind: 'kafka',
        conditions: [
          { condition: 'errors', name: 'erroring', state: 'erroring', severity: 'warning' },
        ],
      });
      expect(orders.stateSince).toEqual(expect.any(String));
      const failed = services[0].pipes.find((p) => p.name === 'events-object-storage')!;
      expect(failed.conditions).toEqual([
        expect.objectContaining({ condition: 'health', state: 'Failed', severity: 'critical' }),
      ]);
      const text = await pipes(['list', '--service', sb.info.serviceId, ...args]);
      expect(text.stdout).toMatch(/orders-kafka .*erroring \(warning\) since/);
    } finally {
      await admin(sb, 'DELETE', `/pipes/${kafka}/flow`);
    }
  });

  it('a name with terminal escapes and bidi controls is printed without them; JSON keeps it', async () => {
    const pipe = sb.store.state.pipes.find((p) => p.id === kafka)!;
    const name = pipe.name;
    pipe.name = 'orders\u001b[2J\u202ekafka';
    try {
      const text = await pipes(['list', '--service', sb.info.serviceId]);
      expect(text.stdout).toMatch(/orders\S*kafka +Running/);
      expect(text.stdout.includes('\u001b') || text.stdout.includes('\u202e')).toBe(false);
      const json = await pipes(['list', '--json', '--service', sb.info.serviceId]);
      expect(json.stdout).toContain('orders\\u001b[2J\u202ekafka');
    } finally {
      pipe.name = name;
    }
  });
});

describe('pipes get', () => {
  it('finds a pipe by name or id and shows every metric read', async () => {
    for (const ref of ['orders-kafka', kafka]) {
      const run = await pipes(['get', ref, '--json']);
      expect(run.code).toBe(0);
      const got = JSON.parse(run.stdout) as { pipeId: string; metrics: Record<string, unknown> };
      expect(got.pipeId).toBe(kafka);
      expect([typeof got.metrics.sentEvents, typeof got.metrics.errors]).toEqual([
        'number',
        'number',
      ]);
    }
    const text = await pipes(['get', 'orders-kafka']);
    expect(text.stdout).toMatch(/^pipe orders-kafka \(/);
    expect(text.stdout).toMatch(/sentEvents +\d+/);
  });

  it('an unknown pipe fails with exit 1, naming where it looked; no id is a usage error', async () => {
    const run = await pipes(['get', 'nope']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/no pipe "nope" in .*\(metrics\)/);
    expect((await pipes(['get'])).code).toBe(64);
  });
});

describe('pipes start | stop | resync', () => {
  it('starting a Running pipe is "already running", exit 0, and nothing is sent', async () => {
    const run = await pipes(['start', 'orders-kafka', '--yes']);
    expect(run).toMatchObject({ code: 0 });
    expect(run.stdout).toMatch(/orders-kafka .*: already running/);
    expect(writes()).toEqual([]);
  });

  it('refuses what the service would refuse, before calling: exit 1, nothing sent', async () => {
    const start = await pipes(['start', 'users-postgres-cdc', '--yes']);
    expect(start.code).toBe(1);
    expect(start.stderr).toMatch(/starts only from Stopped or Failed; this one is Provisioning/);
    const resync = await pipes(['resync', 'orders-kafka', '--yes']);
    expect(resync.code).toBe(1);
    expect(resync.stderr).toMatch(
      /resync is for postgres and mysql pipes only; this one reads from kafka; nothing was sent/,
    );
    expect(writes()).toEqual([]);
  });

  it('stop, then stop again: one PATCH, then "already stopped"; start brings it back', async () => {
    const stop = await pipes(['stop', kafka, '--yes']);
    expect(stop.stdout).toMatch(/stopped pipe orders-kafka .*: Running -> Stopped/);
    const again = await pipes(['stop', kafka, '--yes']);
    expect(again.stdout).toMatch(/already stopped/);
    const start = await pipes(['start', kafka, '--yes']);
    expect(start.stdout).toMatch(/started pipe orders-kafka .*: Stopped -> Running/);
    expect(writes().map((e) => `${e.method} ${e.status}`)).toEqual(['PATCH 200', 'PATCH 200']);
    expect(sb.store.pipe(kafka)?.state).toBe('Running');
  });

  it('resyncs a database pipe', async () => {
    const run = await pipes(['resync', 'users-postgres-cdc', '--yes']);
    expect(run.stdout).toMatch(/resync started for pipe users-postgres-cdc .*-> Resync/);
    expect(run.code).toBe(0);
  });

  it('off a terminal without --yes: a usage error (64), nothing read or sent', async () => {
    const run = await pipes(['stop', 'orders-kafka']);
    expect(run.code).toBe(64);
    expect(run.stderr).toMatch(/needs --yes/);
    expect(management()).toEqual([]);
  });

  it('on a terminal it asks; only yes sends', async () => {
    const no = await onTerminal(['stop', 'orders-kafka'], 'n');
    expect(no.code).toBe(1);
    expect(no.asked[0]).toMatch(
      /^stop pipe orders-kafka \(.*\) in service .*\? It is Running\. \[y\/N\] $/,
    );
    expect(no.stderr).toMatch(/nothing was changed/);
    expect(writes()).toEqual([]);
    const yes = await onTerminal(['stop', 'orders-kafka'], 'yes');
    expect(yes.code).toBe(0);
    expect(writes()).toHaveLength(1);
  });

  it('--help states the exit codes', async () => {
    const help = await runCapture(['pipes', 'start', '--help'], { env });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Exit codes: 0 done, or nothing to do .*; 1 failed or refused/s);
    expect(help.stdout).toMatch(/64 usage or setup error/);
    expect(help.stdout).toMatch(/130 interrupted/);
  });
});
