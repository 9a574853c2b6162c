/** Pipe watchdog: a pipe breaks and recovers; each is said once, and a quiet pass says nothing. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pipesCommand } from '../commands/pipes';
import { expectThat, runCommand, say, type DemoContext, type DemoStep } from './context';

/** One pass of `cloudops pipes check --json`, its notifications returned (output shown only if asked). */
async function check(ctx: DemoContext, stateFile: string, show: boolean) {
  let json = '';
  const quiet = { ...ctx, io: { ...ctx.io, out: (text: string) => void (json += text) } };
  const code = await runCommand(quiet, pipesCommand, [
    'check',
    '--json',
    '--state-file',
    stateFile,
  ]);
  expectThat(code === 0, 'the watchdog pass succeeded');
  const result = JSON.parse(json.replace(/^ {4}/gm, '')) as {
    checked: number;
    notifications: {
      kind: string;
      severity: string;
      pipeName: string;
      from: string | null;
      to: string | null;
      message: string;
    }[];
  };
  if (show) {
    for (const n of result.notifications) {
      say.line(
        ctx.io,
        `  [${n.severity.toUpperCase()}] ${n.kind} ${n.pipeName}: ${n.from ?? '—'} → ${n.to ?? '—'}`,
      );
    }
  }
  return result;
}

const watchdogStep: DemoStep = {
  title: 'Pipe watchdog: one notice when a pipe breaks, one when it recovers, silence in between',
  async run(ctx) {
    const dir = mkdtempSync(path.join(tmpdir(), 'cloudops-demo-watchdog-'));
    const stateFile = path.join(dir, 'pipes-state.json');
    try {
      const baseline = await check(ctx, stateFile, false);
      say.ok(
        ctx.io,
        `first pass: ${baseline.checked} pipes checked, ${baseline.notifications.length} announced (a silent baseline: only the ones already in trouble are told)`,
      );

      const quiet = await check(ctx, stateFile, false);
      expectThat(quiet.notifications.length === 0, 'an unchanged pass says nothing');
      say.ok(ctx.io, 'second pass, nothing changed: 0 notifications');

      const pipeId = ctx.sandbox.info.pipeIds[0];
      ctx.sandbox.setPipeState(pipeId, 'Failed');
      const broken = await check(ctx, stateFile, true);
      expectThat(
        broken.notifications.some((n) => n.severity === 'critical' && n.to === 'Failed'),
        'the failure was announced',
      );
      const again = await check(ctx, stateFile, false);
      expectThat(again.notifications.length === 0, 'the failure is announced once');
      say.ok(ctx.io, 'the pipe broke: one critical notice; the next pass stays quiet');

      ctx.sandbox.setPipeState(pipeId, 'Running');
      const recovered = await check(ctx, stateFile, true);
      expectThat(
        recovered.notifications.some((n) => n.kind === 'recovery'),
        'the recovery was announced',
      );
      say.ok(ctx.io, 'it recovered: one recovery notice');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export const watchdogSteps: DemoStep[] = [watchdogStep];
