/**
 * What a person sees when something goes wrong: one line saying what, where and what to do,
 * never a stack trace unless --debug asks for it; outputs checked before the first write; an
 * unreachable service named once, quickly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/exit';
import { sandboxEnv, terminalLogger, EXAMPLE_WEBHOOK_VARS } from '../../cli/connect';
import { noteStdinFromTerminal, type CliIO } from '../../cli/io';
import { createLogger } from '../../lib/log';
import { startSandbox, type Sandbox } from '../../sandbox';
import { runCapture } from '../support/cli';

let sandbox: Sandbox;
let dir: string;
let env: Record<string, string>;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  env = { ...sandboxEnv(sandbox.info), CLOUDOPS_LOG_LEVEL: 'silent' };
  dir = mkdtempSync(path.join(tmpdir(), 'cloudops-errors-'));
});
afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

const STACK_LINE = /^\s+at .+:\d+:\d+\)?$/m;

/** A loopback port nothing listens on (bound, then closed). */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

describe('an unreachable service', () => {
  it('fails within seconds, in one line naming the URL once and the setting to check', async () => {
    const url = await closedPortUrl();
    const started = Date.now();
    const run = await runCapture(['pipes', 'check', '--state-file', path.join(dir, 'p.json')], {
      env: { ...env, CLOUDOPS_API_URL: url },
    });
    const elapsed = Date.now() - started;
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      `cloudops pipes: cannot reach the management API at ${url} (connection refused, 3 attempts): check CLOUDOPS_API_URL, and that \`cloudops sandbox\` is still running`,
    ]);
    expect(elapsed).toBeLessThan(5_000);
  });

  it('is checked for the subcommand however the flags come before it (`keys --json list`)', async () => {
    const url = await closedPortUrl();
    const run = await runCapture(['keys', '--json', 'list'], {
      env: { ...env, CLOUDOPS_API_URL: url },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`cloudops keys: cannot reach the management API at ${url}`);
  });

  it('names the observability API for dashboards in open-source mode, and lets --help through', async () => {
    const url = await closedPortUrl();
    const broken = {
      ...env,
      CLOUDOPS_OBSERVABILITY_MODE: 'open-source',
      CLOUDOPS_OBSERVABILITY_URL: url,
    };
    const plan = await runCapture(['dashboards', 'plan', '--dir', 'dashboards'], { env: broken });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(`cannot reach the observability API at ${url}`);
    expect((await runCapture(['dashboards', 'plan', '--help'], { env: broken })).code).toBe(0);
  });

  it('leaves the observability URL alone in managed mode, where every call goes through the management API', async () => {
    const url = await closedPortUrl();
    const run = await runCapture(['dashboards', 'plan', '--dir', 'dashboards'], {
      env: {
        ...env,
        CLOUDOPS_OBSERVABILITY_URL: url,
        CLOUDOPS_VAR_WEBHOOK_ID: sandbox.info.webhookId,
        ...EXAMPLE_WEBHOOK_VARS,
      },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });
});

describe('failures from a service', () => {
  it('print one line without a stack trace; --debug adds the stack', async () => {
    const args = ['keys', 'rotate', '--secret-id', 'no-such-secret', '--via', 'secrets-manager'];
    const plain = await runCapture(args, { env });
    expect(plain.code).toBe(1);
    expect(plain.stderr).toMatch(
      /^cloudops keys: RotateSecret no-such-secret: Secrets Manager at http:\/\/127\.0\.0\.1:\d+ answered ResourceNotFoundException: .*; check the secret id/,
    );
    expect(plain.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(plain.stderr).not.toMatch(STACK_LINE);

    const debug = await runCapture([...args, '--debug'], { env });
    expect(debug.code).toBe(1);
    expect(debug.stderr).toMatch(STACK_LINE);
  });

  it('keys rotate --via secrets-manager where no rotation function is set says to use --via local', async () => {
    // This sandbox was started without one (`cloudops sandbox` wires the real function).
    const run = await runCapture(
      ['keys', 'rotate', '--via', 'secrets-manager', '--secret-id', sandbox.info.keySecretId],
      { env },
    );
    expect(run.code).toBe(1);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(
      /^cloudops keys: RotateSecret arn:\S+: Secrets Manager at http:\/\/127\.0\.0\.1:\d+ answered InvalidRequestException: .*; the secret needs a rotation function \(the stack deploys one\), or run with --via local$/m,
    );
  });
});

describe('outputs that cannot be written', () => {
  it('dashboards apply --events into a missing folder fails before any write to the service', async () => {
    const before = sandbox.requestLog.entries().length;
    const run = await runCapture(
      [
        'dashboards',
        'apply',
        '--dir',
        'dashboards',
        '--events',
        path.join(dir, 'missing/events.json'),
      ],
      { env: { ...env, CLOUDOPS_VAR_WEBHOOK_ID: sandbox.info.webhookId, ...EXAMPLE_WEBHOOK_VARS } },
    );
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toMatch(
      /^cloudops dashboards: --events .*missing\/events\.json: folder .*missing does not exist$/m,
    );
    expect(sandbox.requestLog.entries().slice(before)).toEqual([]);
  });
});

describe('on a terminal', () => {
  const captured = (stdinIsTTY: boolean) => {
    const lines: string[] = [];
    const io: CliIO = {
      out: () => {},
      err: (text) => void lines.push(text),
      env: {},
      isTTY: true,
      stdinIsTTY,
    };
    return { io, lines };
  };

  it('reading events from a terminal says so, and how to end or avoid it', () => {
    const tty = captured(true);
    noteStdinFromTerminal(tty.io, 'the events (JSON)', '--file FILE');
    expect(tty.lines).toEqual([
      'reading the events (JSON) from the terminal: paste it and end with Ctrl-D, or give --file FILE',
    ]);
    const piped = captured(false);
    noteStdinFromTerminal(piped.io, 'the events (JSON)', '--file FILE');
    expect(piped.lines).toEqual([]);
  });

  it('a wait of a second or more before a retry is shown; short ones and debug lines are not', () => {
    const lines: string[] = [];
    const logger = terminalLogger(createLogger({ level: 'silent' }), (line) => lines.push(line));
    const retry = { method: 'GET', path: '/v1/organizations/o/keys', attempt: 1 };
    logger.info('api retry', { ...retry, delayMs: 4_200, reason: 429 });
    logger.info('api retry', { ...retry, delayMs: 250, reason: 'reset' });
    logger.child({ command: 'x' }).warn('could not list pipes', { error: { message: 'boom' } });
    expect(lines).toEqual([
      '… rate limited: retrying GET /v1/organizations/o/keys in 4.2 s (attempt 1)',
      'warning: could not list pipes: boom',
    ]);
  });
});
