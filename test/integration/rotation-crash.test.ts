/**
 * Crash matrix: the rotator dies before or after each of its external calls (Secrets Manager
 * and management API), then Secrets Manager retries (same token), and later a new rotation
 * runs (new token) — or the stuck rotation is abandoned and a new token starts over. Every run
 * must converge to one working AWSCURRENT key, with no key lacking an expiry and no orphan
 * left usable.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredSecrets } from '../../lib/redact';
import type { KeyRow } from '../../sandbox/index';
import {
  DAY,
  startRotationSandbox,
  TEST_CONFIG,
  type CrashPlan,
  type RotationSandbox,
} from './rotation-harness';

const owned = (k: KeyRow) => k.name.startsWith(TEST_CONFIG.namePrefix);

async function expectConverged(rs: RotationSandbox, label: string): Promise<void> {
  const stages = await rs.stages();
  const current = Object.keys(stages).filter((id) => stages[id]?.includes('AWSCURRENT'));
  expect(current, label).toHaveLength(1);
  const stuck = Object.keys(stages).filter(
    (id) => stages[id]?.includes('AWSPENDING') && !stages[id]?.includes('AWSCURRENT'),
  );
  expect(stuck, `${label}: no unfinished AWSPENDING`).toEqual([]);

  const value = await rs.read('AWSCURRENT');
  expect(await rs.authenticates(value), `${label}: AWSCURRENT authenticates`).toBe(true);
  const previous = await rs.read('AWSPREVIOUS');
  const now = rs.sb.clock.now();
  const keys = rs.sb.store.state.keys;
  expect(
    keys.filter((k) => k.expireAt === null),
    `${label}: keys without expiry`,
  ).toEqual([]);
  const keep = new Set([value.keyId.slice(-4), previous.keyId.slice(-4)]);
  for (const key of keys.filter(owned)) {
    expect(Date.parse(key.expireAt!)).toBeLessThanOrEqual(
      Date.parse(key.createdAt) + TEST_CONFIG.lifetimeMs,
    );
    if (!keep.has(key.keySuffix)) {
      // An orphan (its rotation was abandoned) or an old key: never usable.
      const usable = key.state === 'enabled' && Date.parse(key.expireAt!) > now;
      expect(usable, `${label}: orphan ${key.name} still usable`).toBe(false);
    }
  }
}

describe('crash matrix', () => {
  let probe: RotationSandbox;
  let calls: string[] = [];
  beforeAll(async () => {
    // A clean rotation tells how many external calls there are to crash around.
    probe = await startRotationSandbox();
    probe.counter.reset();
    await probe.rotate();
    calls = [...probe.counter.calls];
  });
  afterAll(() => probe.close());

  it('learns the call sequence of one rotation', () => {
    console.log(`one rotation = ${calls.length} external calls: ${calls.join(' ')}`);
    expect(calls.filter((c) => c.startsWith('api:')).length).toBeLessThanOrEqual(6);
  });

  const plans = (): CrashPlan[] =>
    calls.flatMap((_, i) => [
      { at: i + 1, when: 'before' as const },
      { at: i + 1, when: 'after' as const },
    ]);

  it('converges after a crash at every call, retrying with the same token and later a new one', async () => {
    const outcomes: string[] = [];
    for (const plan of plans()) {
      const label = `crash ${plan.when} #${plan.at} (${calls[plan.at - 1]}), same-token retry`;
      const rs = await startRotationSandbox();
      try {
        rs.counter.reset(plan);
        const token = '11111111-1111-4111-8111-111111111111';
        const failure = await rs.rotate(token).then(
          () => undefined,
          (error: unknown) => error as Error,
        );
        if (failure) {
          expect(failure.message, label).toMatch(/injected crash/);
          // No key secret (seeded or generated) in the error Secrets Manager reports.
          for (const secret of registeredSecrets()) expect(failure.message).not.toContain(secret);
        }
        outcomes.push(failure ? 'failed' : `survived: ${label}`);
        // Secrets Manager retries the rotation with the same token.
        rs.counter.reset();
        await rs.retry(token);
        await expectConverged(rs, label);
        // Later, the next scheduled rotation.
        rs.sb.clock.advance(TEST_CONFIG.gracePeriodMs + DAY);
        await rs.rotate();
        await expectConverged(rs, `${label}, then a new token`);
      } finally {
        await rs.close();
      }
    }
    console.log(
      `crash matrix (same token): ${outcomes.length} cases, ${outcomes.filter((o) => o === 'failed').length} failed the first run, all converged`,
      outcomes.filter((o) => o !== 'failed'),
    );
    // Every injected crash really failed its run (none was swallowed).
    expect(outcomes.every((o) => o === 'failed')).toBe(true);
  });

  it('converges when the stuck rotation is abandoned and a new token starts over', async () => {
    for (const plan of plans()) {
      const label = `crash ${plan.when} #${plan.at} (${calls[plan.at - 1]}), abandoned`;
      const rs = await startRotationSandbox();
      try {
        rs.counter.reset(plan);
        await rs.rotate().catch(() => undefined);
        rs.counter.reset();
        await rs.abandonPending();
        await rs.rotate();
        await expectConverged(rs, label);
      } finally {
        await rs.close();
      }
    }
  });
});
