import { describe, expect, it } from 'vitest';
import { RateLimiterRegistry, SlidingWindowLimiter, systemClock } from '../../../lib/api';
import { fakeClock } from './fixtures';

/** Max starts in any window of length w (inclusive of the left edge, exclusive of the right). */
function maxInWindow(starts: number[], w: number): number {
  let best = 0;
  for (let i = 0; i < starts.length; i++) {
    const from = starts[i];
    best = Math.max(best, starts.filter((t) => t >= from && t < from + w).length);
  }
  return best;
}

describe('SlidingWindowLimiter', () => {
  it('lets N start at once and never more than N in any window', async () => {
    const clock = fakeClock(0);
    const limiter = new SlidingWindowLimiter({ limit: 10, windowMs: 10_000, marginMs: 0 }, clock);
    const starts: number[] = [];
    await Promise.all(
      Array.from({ length: 35 }, () =>
        limiter.acquire().then((slot) => {
          starts.push(clock.now());
          slot.settle();
        }),
      ),
    );
    expect(starts.slice(0, 10)).toEqual(Array(10).fill(0));
    expect(starts[10]).toBe(10_000);
    expect(starts[34]).toBe(30_000);
    expect(maxInWindow(starts, 10_000)).toBe(10);
  });

  it('keeps a margin so a server counting arrivals never sees N+1', async () => {
    const clock = fakeClock(0);
    const limiter = new SlidingWindowLimiter({ limit: 2, windowMs: 1_000, marginMs: 20 }, clock);
    const starts: number[] = [];
    for (let i = 0; i < 5; i++) {
      (await limiter.acquire()).settle();
      starts.push(clock.now());
    }
    expect(starts).toEqual([0, 0, 1_020, 1_020, 2_040]);
  });

  it('spaces later starts from the oldest one in the window', async () => {
    const clock = fakeClock(0);
    const limiter = new SlidingWindowLimiter({ limit: 3, windowMs: 1_000, marginMs: 0 }, clock);
    const starts: number[] = [];
    for (let i = 0; i < 3; i++) {
      (await limiter.acquire()).settle();
      starts.push(clock.now());
      clock.advance(300);
    }
    for (let i = 0; i < 3; i++) {
      (await limiter.acquire()).settle();
      starts.push(clock.now());
    }
    expect(starts).toEqual([0, 300, 600, 1_000, 1_300, 1_600]);
  });

  it('pauses the whole bucket until a 429 reset', async () => {
    const clock = fakeClock(0);
    const limiter = new SlidingWindowLimiter({ limit: 100, windowMs: 1_000 }, clock);
    limiter.pauseUntil(5_000);
    (await limiter.acquire()).settle();
    expect(clock.now()).toBe(5_000);
  });

  it('an aborted waiter does not block the ones behind it', async () => {
    const clock = fakeClock(0);
    const limiter = new SlidingWindowLimiter({ limit: 1, windowMs: 1_000, marginMs: 0 }, clock);
    (await limiter.acquire()).settle();
    const controller = new AbortController();
    controller.abort();
    await expect(limiter.acquire(controller.signal)).rejects.toThrow();
    (await limiter.acquire()).settle();
    expect(clock.now()).toBe(1_000);
  });

  it('an in-flight request holds its place; its window runs from its answer', async () => {
    const clock = fakeClock(0);
    const limiter = new SlidingWindowLimiter({ limit: 1, windowMs: 1_000, marginMs: 0 }, clock);
    const first = await limiter.acquire();
    let secondAt: number | undefined;
    const second = limiter.acquire().then((slot) => {
      secondAt = clock.now();
      return slot;
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(secondAt).toBeUndefined();
    clock.advance(300); // the first answer takes 300 ms
    first.settle();
    (await second).settle();
    expect(secondAt).toBe(1_300);
  });

  it('a released slot (request never sent) does not count', async () => {
    const clock = fakeClock(0);
    const limiter = new SlidingWindowLimiter({ limit: 1, windowMs: 1_000, marginMs: 0 }, clock);
    (await limiter.acquire()).release();
    (await limiter.acquire()).settle();
    expect(clock.now()).toBe(0);
    expect(limiter.inWindow()).toBe(1);
  });

  it('an aborted waiter stuck behind in-flight requests rejects', async () => {
    const limiter = new SlidingWindowLimiter({ limit: 1, windowMs: 1_000 }, fakeClock(0));
    await limiter.acquire();
    const controller = new AbortController();
    const waiting = limiter.acquire(controller.signal);
    controller.abort(new Error('stop'));
    await expect(waiting).rejects.toThrow('stop');
  });

  it('rejects nonsense configuration', () => {
    expect(() => new SlidingWindowLimiter({ limit: 0, windowMs: 1_000 })).toThrow(
      /positive integer/,
    );
    expect(() => new SlidingWindowLimiter({ limit: 1, windowMs: 0 })).toThrow(/window/);
  });

  it('is precise in real time: 15 starts at 5 / 200 ms take about the 400 ms floor', async () => {
    const limiter = new SlidingWindowLimiter({ limit: 5, windowMs: 200 }, systemClock);
    const t0 = performance.now();
    const starts: number[] = [];
    await Promise.all(
      Array.from({ length: 15 }, () =>
        limiter.acquire().then((slot) => {
          starts.push(performance.now() - t0);
          slot.settle();
        }),
      ),
    );
    const wall = performance.now() - t0;
    expect(wall).toBeGreaterThanOrEqual(400);
    expect(wall).toBeLessThanOrEqual(440 + 40); // ≤ 1.1× floor, plus timer slack on a busy box
    expect(maxInWindow(starts, 200)).toBeLessThanOrEqual(5);
  });
});

describe('RateLimiterRegistry', () => {
  it('shares one bucket per credential label and keeps others apart', () => {
    const registry = new RateLimiterRegistry();
    const config = { limit: 10, windowMs: 10_000 };
    expect(registry.get('key-a', config)).toBe(registry.get('key-a', config));
    expect(registry.get('key-a', config)).not.toBe(registry.get('key-b', config));
  });
});
