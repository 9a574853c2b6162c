import { describe, expect, it } from 'vitest';
import { decideServiceHealth, type ListingOutcome } from '../../../lib/pipes/health';
import type { ServiceRecord } from '../../../lib/pipes/types';

const o = { organizationId: 'org', serviceId: 'svc', selfWatchAfterFailures: 2 };
const listed: ListingOutcome = { kind: 'listed' };
const failed: ListingOutcome = { kind: 'failed', message: '500' };
const idle: ListingOutcome = { kind: 'idle', message: 'FAILED_DEPENDENCY: Current state: idle' };

/** Feed outcomes run after run; the kinds said per run. */
function script(outcomes: ListingOutcome[]) {
  let record: ServiceRecord | undefined;
  return outcomes.map((outcome, i) => {
    const d = decideServiceHealth(record, outcome, 1_000 * (i + 1), o);
    record = { ...d.next, version: (record?.version ?? -1) + 1 };
    return { said: d.notifications.map((n) => `${n.kind}:${n.severity}`), baseline: d.baseline };
  });
}

describe('decideServiceHealth', () => {
  it('the first working listing is the baseline; later ones are not', () => {
    expect(script([listed, listed]).map((r) => r.baseline)).toEqual([true, false]);
    expect(script([failed, listed, listed]).map((r) => r.baseline)).toEqual([false, true, false]);
  });

  it('an idle service is told once at info (no alarm), and again when active', () => {
    expect(script([listed, idle, idle, idle, listed, listed]).map((r) => r.said)).toEqual([
      [],
      ['idle:info'],
      [],
      [],
      ['active:info'],
      [],
    ]);
  });

  it('idle is not a failure: it never builds toward the self-watch alarm', () => {
    expect(script([listed, failed, idle, idle, idle]).flatMap((r) => r.said)).toEqual([
      'idle:info',
    ]);
  });

  it('failures: one critical notice after M runs, one recovery', () => {
    expect(script([listed, failed, failed, failed, listed]).map((r) => r.said)).toEqual([
      [],
      [],
      ['watchdog:critical'],
      [],
      ['recovery:info'],
    ]);
  });

  it('records the fan-out run that finished the service', () => {
    const d = decideServiceHealth(undefined, listed, 1, { ...o, runId: 'run-7' });
    expect(d.next.lastRunId).toBe('run-7');
  });
});
