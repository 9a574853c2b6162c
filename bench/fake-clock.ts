/**
 * A clock for figures at the real rate limit: real time plus the jumps that sleeps (and
 * `advance`) made, so a limiter wait costs no real time. Deadlines made with `timeout` fire
 * when fake time passes them, as a Lambda's would.
 */
import type { Clock } from '../lib/api/clock';

export interface FakeClock {
  clock: Clock;
  /** Epoch milliseconds on the fake time line (for the sandbox's `now`). */
  epoch: () => number;
  /** An AbortSignal that fires `ms` of fake time from now. */
  timeout: (ms: number) => AbortSignal;
  /** Idle time passes (e.g. between two SQS deliveries). */
  advance: (ms: number) => void;
}

export function fakeClock(): FakeClock {
  const realStart = performance.now();
  const epoch0 = Date.now();
  let offset = 0;
  const timers: { at: number; controller: AbortController }[] = [];
  const mono = () => performance.now() - realStart + offset;
  const fire = () => {
    const now = mono();
    for (const t of timers)
      if (!t.controller.signal.aborted && t.at <= now) t.controller.abort(new Error('deadline'));
  };
  const clock: Clock = {
    now: () => {
      fire();
      return mono();
    },
    async sleep(ms, signal) {
      signal?.throwIfAborted();
      // Jump to the wake-up time (never back): a wait costs no real time.
      offset += Math.max(0, ms);
      fire();
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
    },
  };
  return {
    clock,
    epoch: () => epoch0 + clock.now(),
    timeout: (ms) => {
      const controller = new AbortController();
      timers.push({ at: mono() + ms, controller });
      return controller.signal;
    },
    advance: (ms) => {
      offset += Math.max(0, ms);
      fire();
    },
  };
}
