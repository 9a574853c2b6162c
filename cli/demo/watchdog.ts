/** Pipe watchdog: a pipe breaks and recovers; each is said once, and a quiet pass says nothing. */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expectThat, runCommand, say, type DemoContext, type DemoStep } from './context';

interface Delivered {
  kind: string;
  severity: string;
  pipeName: string;
  from: string | null;
  to: string | null;
}

/** A webhook on loopback: what the watchdog delivers is what the demo checks. */
async function webhookReceiver(): Promise<{ url: string; take(): Delivered[]; server: Server }> {
  let received: Delivered[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push((JSON.parse(body) as { notification: Delivered }).notification);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/hooks/pipes`,
    take: () => {
      const taken = received;
      received = [];
      return taken;
    },
    server,
  };
}

/** One `cloudops pipes check` pass, as a user runs it; returns what reached the webhook. */
async function check(
  ctx: DemoContext,
  stateFile: string,
  webhook: Awaited<ReturnType<typeof webhookReceiver>>,
) {
  const code = await runCommand(ctx, ['pipes', 'check', '--state-file', stateFile], {
    CLOUDOPS_WATCHDOG_WEBHOOK_URL: webhook.url,
  });
  expectThat(code === 0, 'the watchdog pass succeeded');
  return webhook.take();
}

const watchdogStep: DemoStep = {
  title: 'Pipe watchdog: one notice when a pipe breaks, one when it recovers, silence in between',
  async run(ctx) {
    const dir = mkdtempSync(path.join(tmpdir(), 'cloudops-demo-watchdog-'));
    const stateFile = path.join(dir, 'pipes-state.json');
    const webhook = await webhookReceiver();
    try {
      const baseline = await check(ctx, stateFile, webhook);
      say.ok(
        ctx.io,
        `first pass: ${baseline.length} delivered to the webhook (a silent baseline: only the ones already in trouble are told)`,
      );

      const quiet = await check(ctx, stateFile, webhook);
      expectThat(quiet.length === 0, 'an unchanged pass says nothing');
      say.ok(ctx.io, 'second pass, nothing changed: nothing delivered');

      const pipeId = ctx.sandbox.info.pipeIds[0];
      ctx.sandbox.setPipeState(pipeId, 'Failed');
      const broken = await check(ctx, stateFile, webhook);
      expectThat(
        broken.some((n) => n.severity === 'critical' && n.to === 'Failed'),
        'the failure was announced',
      );
      const again = await check(ctx, stateFile, webhook);
      expectThat(again.length === 0, 'the failure is announced once');
      say.ok(
        ctx.io,
        'the pipe broke: one critical notice reached the webhook; the next pass stays quiet',
      );

      ctx.sandbox.setPipeState(pipeId, 'Running');
      const recovered = await check(ctx, stateFile, webhook);
      expectThat(
        recovered.some((n) => n.kind === 'recovery'),
        'the recovery was announced',
      );
      say.ok(ctx.io, 'it recovered: one recovery notice');
    } finally {
      webhook.server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export const watchdogSteps: DemoStep[] = [watchdogStep];
