/**
 * One sync-dashboards container for the scale figures: the handler as the stack bundles it
 * (bench/figures/sync-scale.ts builds this file with the stack's esbuild options), on a fake
 * clock kept in step with the parent's over IPC: every wait the API client's rate limiter makes
 * is first made by the parent, whose sandbox enforces the key's limit on the same time line,
 * so the real limit costs no real time. The Lambda deadline (the stack's timeout less
 * deadlineFrom's margin) runs on that clock too.
 *
 * Messages: `init` {env, lambdaMs} once; `invoke` {event, advanceMs} answers `result` with the
 * summary (or the error), the invocation's CPU ms and the process's peak RSS so far.
 */
import type { Context } from 'aws-lambda';
import { deadlineMarginMs } from '../../functions/runtime';
import { createHandler } from '../../functions/sync-dashboards/handler';
import type { Clock } from '../../lib/api/clock';
import { RateLimiterRegistry } from '../../lib/api/rate-limiter';
import { fakeClock } from '../fake-clock';

type Handler = ReturnType<typeof createHandler>;

const fake = fakeClock();
let asked = 0;
const answers = new Map<number, () => void>();

/** A wait: the parent moves its clock first (its sandbox judges the rate limit), then ours. */
const clock: Clock = {
  now: () => fake.clock.now(),
  async sleep(ms, signal) {
    signal?.throwIfAborted();
    const id = ++asked;
    await new Promise<void>((resolve) => {
      answers.set(id, resolve);
      process.send!({ type: 'sleep', id, ms });
    });
    await fake.clock.sleep(ms, signal);
  },
};

let handler: Handler | undefined;
let lambdaMs = 0;
let peakRss = process.memoryUsage().rss;
setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 5).unref();

process.on('message', (m: Record<string, unknown>) => {
  if (m.type === 'slept') {
    answers.get(m.id as number)?.();
    answers.delete(m.id as number);
  } else if (m.type === 'init') {
    lambdaMs = m.lambdaMs as number;
    handler = createHandler({
      env: m.env as Record<string, string>,
      clock,
      limiters: new RateLimiterRegistry(clock),
      deadline: () => ({ signal: fake.timeout(lambdaMs - deadlineMarginMs(lambdaMs)) }),
    });
    process.send!({ type: 'ready', memory: process.memoryUsage() });
  } else if (m.type === 'invoke') {
    fake.advance((m.advanceMs as number | undefined) ?? 0);
    void invoke(m.event);
  }
});

async function invoke(event: unknown) {
  const cpu = process.cpuUsage();
  const started = fake.clock.now();
  const context = { getRemainingTimeInMillis: () => lambdaMs - (fake.clock.now() - started) };
  let answer: Record<string, unknown>;
  try {
    const summary = await handler!(event, context as unknown as Context);
    answer = { ok: true, summary };
  } catch (error) {
    answer = {
      ok: false,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    };
  }
  const used = process.cpuUsage(cpu);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  process.send!({
    type: 'result',
    ...answer,
    cpuMs: (used.user + used.system) / 1000,
    fakeMs: fake.clock.now() - started,
    peakRssMB: peakRss / (1024 * 1024),
    maxRssMB: process.resourceUsage().maxRSS / 1024,
    memory: process.memoryUsage(),
  });
}

process.send!({ type: 'up' });
