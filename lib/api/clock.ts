/** Time source for the limiter and retry loop; tests inject a fake one. */
export interface Clock {
  /** Monotonic milliseconds. */
  now(): number;
  /** Resolves after ms; rejects with the signal's reason if aborted first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason as Error);
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
