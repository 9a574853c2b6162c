/**
 * The watchdog's configuration states every default once: an absent policy, progress policy,
 * auto-restart or delivery limits reads as that schema's own defaults (what `z.prefault(schema,
 * {})` gives), a partial one keeps its other defaults, and a bad value is still refused.
 */
import { describe, expect, it } from 'vitest';
import { parseWatchdogConfig } from '../../../lib/pipes/watchdog-config';

const IDS = { organizationId: 'org', serviceIds: ['svc'] };

describe('watchdog configuration defaults', () => {
  it('absent parts read as their schemas make {}', () => {
    const config = parseWatchdogConfig(IDS);
    expect(config.policy).toMatchObject({
      reminderIntervalMs: 4 * 3_600_000,
      flapMaxChanges: 3,
      stuckAfterMs: 30 * 60_000,
      announceNew: true,
      expectedStopped: [],
    });
    expect(config.progress).toEqual({
      stallAfterMs: 30 * 60_000,
      expectTraffic: [],
      errorsPerRun: 0,
      erroringClearsAfterMs: 15 * 60_000,
    });
    expect(config.autoRestart).toEqual({ enabled: false, maxAttempts: 3, windowMs: 3_600_000 });
    expect(config.delivery).toEqual({
      notifierTimeoutMs: 10_000,
      maxAttempts: 10,
      maxAgeMs: 24 * 3_600_000,
      maxPending: 50,
    });
  });

  it('a part given in part keeps the defaults of the rest', () => {
    const config = parseWatchdogConfig({ ...IDS, autoRestart: { enabled: true } });
    expect(config.autoRestart).toEqual({ enabled: true, maxAttempts: 3, windowMs: 3_600_000 });
  });

  it('each parse gets its own defaults (one run changing them leaves the next alone)', () => {
    const first = parseWatchdogConfig(IDS);
    first.progress.expectTraffic.push('orders');
    expect(parseWatchdogConfig(IDS).progress.expectTraffic).toEqual([]);
  });

  it('a bad value inside a part is refused naming it', () => {
    expect(() => parseWatchdogConfig({ ...IDS, autoRestart: { maxAttempts: 0 } })).toThrow(
      /autoRestart\.maxAttempts/,
    );
  });
});
