/**
 * RotateSecret only starts a rotation: the function runs its four steps afterwards. Whoever
 * asked follows the version it named (DescribeSecret's stages) until it is AWSCURRENT with
 * AWSPENDING gone, or a deadline passes. A failed rotation looks the same as a slow one from
 * outside (AWS retries it), so both end as "not finished" at the deadline.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { AWSCURRENT, AWSPENDING, type SecretVersions } from './stages';

export type RotationOutcome =
  | { finished: true; waitedMs: number }
  | { finished: false; waitedMs: number; stages: string[] | undefined };

export interface FollowOptions {
  /** How long to follow before giving up. */
  deadlineMs: number;
  signal?: AbortSignal | undefined;
  /** Epoch ms. @default Date.now */
  now?: () => number;
  /** @default node's timers/promises setTimeout */
  wait?: (ms: number, signal?: AbortSignal) => Promise<unknown>;
  /** First pause between two looks; it doubles up to 5 s. @default 250 */
  firstPauseMs?: number;
}

const MAX_PAUSE_MS = 5_000;

export async function followRotation(
  versions: SecretVersions,
  token: string,
  options: FollowOptions,
): Promise<RotationOutcome> {
  const now = options.now ?? Date.now;
  const wait =
    options.wait ?? ((ms: number, signal?: AbortSignal) => sleep(ms, undefined, { signal }));
  const start = now();
  let pause = options.firstPauseMs ?? 250;
  for (;;) {
    const stages = (await versions.describe()).stages[token];
    const waitedMs = now() - start;
    if (stages?.includes(AWSCURRENT) && !stages.includes(AWSPENDING))
      return { finished: true, waitedMs };
    // A version that lost every label (or never had one) will not finish.
    if (stages === undefined || stages.length === 0 || waitedMs >= options.deadlineMs)
      return { finished: false, waitedMs, stages };
    await wait(Math.min(pause, options.deadlineMs - waitedMs), options.signal);
    pause = Math.min(pause * 2, MAX_PAUSE_MS);
  }
}
