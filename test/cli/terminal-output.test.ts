/* eslint-disable no-control-regex -- these tests look for control characters in output */
/**
 * Names the service holds are untrusted: someone renames a managed dashboard on the service to
 * one carrying escape sequences and a bidi override, and `dashboards plan` shows the change
 * without letting any of them drive the terminal; `--json` carries the name as it is.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dashboardsCommand } from '../../cli/commands/dashboards';
import { sandboxEnv } from '../../cli/connect';
import type { CliIO } from '../../cli/io';
import { startSandbox, type Sandbox } from '../../sandbox/index';

const HOSTILE = 'Checkout\u001b[2J\u001b]0;owned\u0007\u202eyrotsih';
/** A control (tab and newline excepted), DEL, C1 or bidi control. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

let sb: Sandbox;
let dir: string;
beforeAll(async () => {
  sb = await startSandbox({
    profile: 'spec',
    port: 0,
    rateLimits: { management: { limit: 100_000, windowMs: 1_000 } },
  });
  dir = await mkdtemp(path.join(tmpdir(), 'cloudops-terminal-'));
  await writeFile(
    path.join(dir, 'checkout.yaml'),
    'name: Checkout\ntiles:\n  - { name: notes, x: 0, y: 0, w: 12, h: 4, markdown: "hello" }\n',
  );
});
afterAll(async () => {
  await sb.close();
  await rm(dir, { recursive: true, force: true });
});

async function cli(argv: string[]) {
  const out: string[] = [];
  const io: CliIO = {
    out: (t) => void out.push(t),
    err: () => undefined,
    env: { ...sandboxEnv(sb.info), CLOUDOPS_MANAGEMENT_RATE_LIMIT: '1000/1s' },
    isTTY: true, // colours on: our own escape codes stay, the service's go
  };
  const code = await dashboardsCommand.runWith(argv, io, new AbortController().signal);
  return { code, out: out.join('\n') };
}

it("a dashboard renamed on the service: the plan shows the name without the service's control codes", async () => {
  expect((await cli(['apply', '--dir', dir, '--auto-approve'])).code).toBe(0);
  const row = sb.store.state.dashboards.find((d) => d.name === 'Checkout')!;
  row.name = HOSTILE;
  sb.store.changed();

  const plan = await cli(['plan', '--dir', dir]);
  const text = plan.out.replace(/\u001b\[\d+m/g, ''); // our colours
  expect(text).toContain('~ name: "Checkoutyrotsih" → "Checkout"');
  expect(text).not.toMatch(UNSAFE);

  const json = await cli(['plan', '--dir', dir, '--json']);
  expect(json.out).toContain(JSON.stringify(HOSTILE).slice(1, -1));
});
