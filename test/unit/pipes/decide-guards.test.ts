/**
 * Every guard of the watchdog's decision pinned to what a person sees: which notice (kind,
 * severity, from/to, since, exact text) and what is stored for the next run. Boundaries are
 * tested on both sides, so moving a comparison by one is a failing test.
 */
import { describe, expect, it } from 'vitest';
import { decide, parsePolicy, type Observation } from '../../../lib/pipes/decide';
import type { PipeRecord } from '../../../lib/pipes/types';
import type { PipeNotice } from '../../../lib/watch/subjects/pipe';

const MIN = 60_000;
const HOUR = 3_600_000;
const T0 = Date.parse('2025-01-01T00:00:00Z');
const policy = parsePolicy();
const iso = (ms: number) => new Date(ms).toISOString();

const seen = (state: string, extra: Partial<Observation> = {}): Observation => ({
  organizationId: 'org',
  serviceId: 'svc',
  pipeId: 'p1',
  pipeName: 'orders',
  state,
  ...extra,
});

/** A stored record as a previous run left it. */
const record = (overrides: Partial<PipeRecord> = {}): PipeRecord => ({
  organizationId: 'org',
  serviceId: 'svc',
  pipeId: 'p1',
  pipeName: 'orders',
  state: 'Running',
  since: T0,
  lastSeenAt: T0,
  changes: [],
  flapping: false,
  stuckNotified: false,
  gone: false,
  missedRuns: 0,
  restarts: [],
  pending: [],
  version: 3,
  ...overrides,
});

/** The notice as a user receives it. */
const notice = (
  fields: Pick<PipeNotice, 'kind' | 'severity' | 'from' | 'to' | 'message'> & {
    at: number;
    since: number;
    pipeName?: string;
  },
): PipeNotice => ({
  subject: 'pipe',
  id: `org/svc/p1/${fields.kind}/${fields.at}`,
  // A pipe's health is one condition (opened, reminded, resolved by the recovery); being gone
  // is another.
  dedupKey: `pipe/org/svc/p1/${fields.kind === 'gone' ? 'gone' : 'health'}`,
  resolves: fields.kind === 'recovery',
  organizationId: 'org',
  serviceId: 'svc',
  pipeId: 'p1',
  pipeName: fields.pipeName ?? 'orders',
  kind: fields.kind,
  severity: fields.severity,
  from: fields.from,
  to: fields.to,
  at: iso(fields.at),
  since: iso(fields.since),
  message: fields.message,
});

describe('a pipe that disappears', () => {
  it('needs its stored record (a programming error otherwise)', () => {
    expect(() => decide(undefined, { gone: true }, T0, policy)).toThrow(
      'a gone pipe needs its stored record',
    );
  });

  it('missing from one listing is a possible blip: nothing told, the miss counted', () => {
    const previous = record({ state: 'Failed', since: T0 - HOUR });
    const d = decide(previous, { gone: true }, T0 + 5 * MIN, policy);
    expect(d).toEqual({ next: { ...previous, missedRuns: 1 }, notifications: [] });
  });

  it('seen again after one miss: the count starts over, nothing told', () => {
    const previous = record({ missedRuns: 1 });
    const d = decide(previous, seen('Running'), T0 + 10 * MIN, policy);
    expect(d.notifications).toEqual([]);
    expect(d.next.missedRuns).toBe(0);
  });

  it('is told once, at its second missing listing in a row, with its last state; its record is kept for the retention only', () => {
    const previous = record({
      state: 'Failed',
      since: T0 - HOUR,
      announced: { kind: 'transition', state: 'Failed', severity: 'critical', since: T0 - HOUR },
      missedRuns: 1,
    });
    const now = T0 + 5 * MIN;
    const d = decide(previous, { gone: true }, now, policy);
    expect(d).toEqual({
      next: {
        ...previous,
        missedRuns: 2,
        gone: true,
        announced: undefined,
        lastNotifiedAt: now,
        expiresAt: Math.floor((now + 30 * 86_400_000) / 1000),
      },
      notifications: [
        notice({
          kind: 'gone',
          severity: 'warning',
          from: 'Failed',
          to: '',
          at: now,
          since: T0 - HOUR,
          message: 'Pipe orders is gone (last state Failed)',
        }),
      ],
    });
  });

  it('is not told again while it stays gone (the stored record is returned as is)', () => {
    const previous = record({ gone: true, lastNotifiedAt: T0, expiresAt: 123 });
    const d = decide(previous, { gone: true }, T0 + 10 * HOUR, policy);
    expect(d.notifications).toEqual([]);
    expect(d.next).toBe(previous);
  });
});

describe('first sight', () => {
  it('a healthy new pipe: full record, one info notice', () => {
    const d = decide(undefined, seen('Running'), T0, policy);
    expect(d).toEqual({
      next: {
        organizationId: 'org',
        serviceId: 'svc',
        pipeId: 'p1',
        pipeName: 'orders',
        state: 'Running',
        since: T0,
        lastSeenAt: T0,
        lastNotifiedAt: T0,
        changes: [],
        flapping: false,
        stuckNotified: false,
        gone: false,
        missedRuns: 0,
        restarts: [],
        pending: [],
        version: 0,
      },
      notifications: [
        notice({
          kind: 'new',
          severity: 'info',
          from: '',
          to: 'Running',
          at: T0,
          since: T0,
          message: 'New pipe orders found in Running',
        }),
      ],
    });
    expect('announced' in d.next).toBe(false);
  });

  it('a new pipe in a bad state is announced as a problem (so it gets reminders and a recovery)', () => {
    const d = decide(undefined, seen('Degraded'), T0, policy);
    expect(d.next.announced).toEqual({
      kind: 'new',
      state: 'Degraded',
      severity: 'warning',
      since: T0,
    });
    expect(d.next.unknownNotified).toBeUndefined();
    expect(d.notifications).toEqual([
      notice({
        kind: 'new',
        severity: 'warning',
        from: '',
        to: 'Degraded',
        at: T0,
        since: T0,
        message: 'New pipe orders found in Degraded',
      }),
    ]);
  });

  it('a new pipe in an unknown state names the value, once', () => {
    const d = decide(undefined, seen('Exploded'), T0, policy);
    expect(d.next.announced).toEqual({
      kind: 'unknown',
      state: 'Exploded',
      severity: 'warning',
      since: T0,
    });
    expect(d.next.unknownNotified).toBe('Exploded');
    expect(d.notifications).toEqual([
      notice({
        kind: 'new',
        severity: 'warning',
        from: '',
        to: 'Exploded',
        at: T0,
        since: T0,
        message: 'New pipe orders found in an unknown state "Exploded"',
      }),
    ]);
    // Leaving and coming back to the same unknown value is not told again; no reminders either.
    const later = decide(d.next, seen('Exploded'), T0 + 10 * HOUR, policy);
    expect(later.notifications).toEqual([]);
  });

  it('a baseline (the first listing of a service) records healthy pipes silently', () => {
    const d = decide(undefined, seen('Running'), T0, policy, { baseline: true });
    expect(d.notifications).toEqual([]);
    expect(d.next.lastNotifiedAt).toBeUndefined();
    expect(d.next.state).toBe('Running');
  });

  it('a baseline still tells problems', () => {
    const d = decide(undefined, seen('Failed'), T0, policy, { baseline: true });
    expect(d.notifications.map((n) => `${n.kind}:${n.severity}`)).toEqual(['new:critical']);
    expect(d.next.lastNotifiedAt).toBe(T0);
  });

  it('a pipe back after being gone is announced even during a baseline', () => {
    const d = decide(record({ gone: true }), seen('Running'), T0, policy, { baseline: true });
    expect(d.notifications.map((n) => n.kind)).toEqual(['new']);
    expect(d.next.gone).toBe(false);
    expect(d.next.version).toBe(0);
  });

  it('announceNew=false still tells a new pipe that is already a problem', () => {
    const quiet = parsePolicy({ announceNew: false });
    expect(decide(undefined, seen('Failed'), T0, quiet).notifications.map((n) => n.kind)).toEqual([
      'new',
    ]);
    expect(decide(undefined, seen('Running'), T0, quiet).next.lastNotifiedAt).toBeUndefined();
  });

  it('since = the updatedAt the service reports, when it is not in the future', () => {
    const at = (updatedAt: string) =>
      decide(undefined, seen('Running', { updatedAt }), T0, policy).next.since;
    expect(at(iso(T0))).toBe(T0);
    expect(at(iso(T0 - MIN))).toBe(T0 - MIN);
    expect(at(iso(T0 + 1))).toBe(T0);
    expect(at('not a date')).toBe(T0);
  });
});

describe('same state as last run', () => {
  it('renames are picked up and lastSeenAt moves, with nothing told', () => {
    const d = decide(record(), seen('Running', { pipeName: 'orders-v2' }), T0 + MIN, policy);
    expect(d).toEqual({
      next: record({ pipeName: 'orders-v2', lastSeenAt: T0 + MIN }),
      notifications: [],
    });
  });

  it('stuck: only once the transitional state is held longer than stuckAfterMs', () => {
    const prov = record({ state: 'Provisioning', since: T0 });
    expect(decide(prov, seen('Provisioning'), T0 + 30 * MIN, policy).notifications).toEqual([]);
    const now = T0 + 30 * MIN + 1;
    expect(decide(prov, seen('Provisioning'), now, policy)).toEqual({
      next: {
        ...prov,
        lastSeenAt: now,
        stuckNotified: true,
        lastNotifiedAt: now,
        announced: { kind: 'stuck', state: 'Provisioning', severity: 'warning', since: T0 },
      },
      notifications: [
        notice({
          kind: 'stuck',
          severity: 'warning',
          from: 'Provisioning',
          to: 'Provisioning',
          at: now,
          since: T0,
          message: 'Pipe orders has been Provisioning for 30 min',
        }),
      ],
    });
    // Told once: a record marked stuckNotified stays quiet.
    const told = record({ state: 'Provisioning', stuckNotified: true, lastNotifiedAt: now });
    expect(decide(told, seen('Provisioning'), T0 + 2 * HOUR, policy).notifications).toEqual([]);
  });

  it('a long-held healthy state is never stuck', () => {
    expect(decide(record(), seen('Running'), T0 + 10 * HOUR, policy).notifications).toEqual([]);
  });

  it('reminds exactly when reminderIntervalMs has passed since the last notice', () => {
    const announced = {
      kind: 'transition' as const,
      state: 'Failed',
      severity: 'critical' as const,
      since: T0 - HOUR,
    };
    const failed = record({ state: 'Failed', since: T0 - HOUR, lastNotifiedAt: T0, announced });
    expect(decide(failed, seen('Failed'), T0 + 4 * HOUR - 1, policy).notifications).toEqual([]);
    const now = T0 + 4 * HOUR;
    expect(decide(failed, seen('Failed'), now, policy)).toEqual({
      next: { ...failed, lastSeenAt: now, lastNotifiedAt: now },
      notifications: [
        notice({
          kind: 'reminder',
          severity: 'critical',
          from: 'Failed',
          to: 'Failed',
          at: now,
          since: T0 - HOUR,
          message: 'Pipe orders is still Failed (5.0 h)',
        }),
      ],
    });
  });

  it('a problem never notified before (no lastNotifiedAt) is reminded at once', () => {
    const failed = record({
      state: 'Failed',
      announced: { kind: 'transition', state: 'Failed', severity: 'critical', since: T0 },
    });
    expect(decide(failed, seen('Failed'), T0 + MIN, policy).notifications[0]?.kind).toBe(
      'reminder',
    );
  });

  it('no reminders without an announced problem, nor for an unknown state', () => {
    expect(decide(record(), seen('Running'), T0 + 10 * HOUR, policy).notifications).toEqual([]);
    const weird = record({
      state: 'Weird',
      unknownNotified: 'Weird',
      lastNotifiedAt: T0,
      announced: { kind: 'unknown', state: 'Weird', severity: 'warning', since: T0 },
    });
    expect(decide(weird, seen('Weird'), T0 + 10 * HOUR, policy).notifications).toEqual([]);
  });
});

describe('the end of a flapping episode', () => {
  const flapping = (state: string, overrides: Partial<PipeRecord> = {}) =>
    record({
      state,
      since: T0,
      flapping: true,
      changes: [T0 - 2 * MIN, T0],
      lastNotifiedAt: T0,
      announced: { kind: 'flapping', state: 'Stopped', severity: 'warning', since: T0 - MIN },
      ...overrides,
    });

  it('stays quiet until flapStableMs after the last change, counted from the last change', () => {
    const f = flapping('Running', { since: T0 - HOUR });
    const quiet = decide(f, seen('Running'), T0 + 15 * MIN - 1, policy);
    expect(quiet).toEqual({
      next: { ...f, lastSeenAt: T0 + 15 * MIN - 1 },
      notifications: [],
    });
    expect(decide(f, seen('Running'), T0 + 15 * MIN, policy).notifications).toHaveLength(1);
  });

  it('without change history, counts from since', () => {
    const f = flapping('Running', { changes: [], since: T0 });
    expect(decide(f, seen('Running'), T0 + 15 * MIN - 1, policy).notifications).toEqual([]);
    expect(decide(f, seen('Running'), T0 + 15 * MIN, policy).notifications).toHaveLength(1);
  });

  it('settled healthy: a recovery from the flapping state; the problem is closed', () => {
    const f = flapping('Running');
    const now = T0 + 15 * MIN;
    expect(decide(f, seen('Running'), now, policy)).toEqual({
      next: {
        ...f,
        lastSeenAt: now,
        flapping: false,
        changes: [],
        announced: undefined,
        lastNotifiedAt: now,
      },
      notifications: [
        notice({
          kind: 'recovery',
          severity: 'info',
          from: 'Stopped',
          to: 'Running',
          at: now,
          since: T0,
          message: 'Pipe orders stopped flapping and is Running',
        }),
      ],
    });
  });

  it('settled without an announced problem: from is the state itself', () => {
    const f = flapping('Running', { announced: undefined });
    expect(decide(f, seen('Running'), T0 + HOUR, policy).notifications[0]).toMatchObject({
      kind: 'recovery',
      from: 'Running',
      to: 'Running',
    });
  });

  it('settled in a bad state: a transition with its severity, and the problem stays open', () => {
    const f = flapping('Failed');
    const now = T0 + 15 * MIN;
    expect(decide(f, seen('Failed'), now, policy)).toEqual({
      next: {
        ...f,
        lastSeenAt: now,
        flapping: false,
        changes: [],
        announced: { kind: 'transition', state: 'Failed', severity: 'critical', since: T0 },
        lastNotifiedAt: now,
      },
      notifications: [
        notice({
          kind: 'transition',
          severity: 'critical',
          from: 'Stopped',
          to: 'Failed',
          at: now,
          since: T0,
          message: 'Pipe orders stopped flapping and stays Failed',
        }),
      ],
    });
    expect(
      decide(flapping('Failed', { announced: undefined }), seen('Failed'), now, policy)
        .notifications[0]?.from,
    ).toBe('Failed');
  });

  it('settled in a transitional state: a warning (it may be stuck), not a recovery', () => {
    const d = decide(flapping('Provisioning'), seen('Provisioning'), T0 + 15 * MIN, policy);
    expect(d.notifications.map((n) => `${n.kind}:${n.severity}`)).toEqual(['transition:warning']);
    expect(d.next.announced?.severity).toBe('warning');
  });

  it('settled in an expected stop: a recovery', () => {
    const p = parsePolicy({ expectedStopped: ['p1'] });
    const d = decide(flapping('Stopped'), seen('Stopped'), T0 + 15 * MIN, p);
    expect(d.notifications.map((n) => `${n.kind}:${n.severity}`)).toEqual(['recovery:info']);
  });
});

describe('a state change', () => {
  it('a healthy pipe going bad: one transition with the new severity, stuck flag and clock reset', () => {
    const prev = record({ stuckNotified: true, changes: [T0 - 20 * MIN, T0 - 4 * MIN] });
    const now = T0 + 10 * MIN;
    expect(decide(prev, seen('Degraded'), now, policy)).toEqual({
      next: {
        ...prev,
        state: 'Degraded',
        since: now,
        lastSeenAt: now,
        // Changes older than the flap window (15 min) are forgotten.
        changes: [T0 - 4 * MIN, now],
        stuckNotified: false,
        lastNotifiedAt: now,
        announced: { kind: 'transition', state: 'Degraded', severity: 'warning', since: now },
      },
      notifications: [
        notice({
          kind: 'transition',
          severity: 'warning',
          from: 'Running',
          to: 'Degraded',
          at: now,
          since: now,
          message: 'Pipe orders went from Running to Degraded',
        }),
      ],
    });
  });

  it('a change exactly flapWindowMs old is out of the window', () => {
    const prev = record({ changes: [T0 - 15 * MIN, T0 - 15 * MIN + 1] });
    expect(decide(prev, seen('Failed'), T0, policy).next.changes).toEqual([T0 - 15 * MIN + 1, T0]);
  });

  it('flapping starts above flapMaxChanges changes in the window, with one notice', () => {
    const three = record({ changes: [T0 - 3 * MIN, T0 - 2 * MIN] });
    expect(decide(three, seen('Failed'), T0, policy).notifications[0]?.kind).toBe('transition');
    const four = record({ changes: [T0 - 3 * MIN, T0 - 2 * MIN, T0 - MIN] });
    expect(decide(four, seen('Failed'), T0, policy)).toEqual({
      next: {
        ...four,
        state: 'Failed',
        since: T0,
        lastSeenAt: T0,
        changes: [T0 - 3 * MIN, T0 - 2 * MIN, T0 - MIN, T0],
        lastNotifiedAt: T0,
        flapping: true,
        announced: { kind: 'flapping', state: 'Failed', severity: 'warning', since: T0 },
      },
      notifications: [
        notice({
          kind: 'flapping',
          severity: 'warning',
          from: 'Running',
          to: 'Failed',
          at: T0,
          since: T0,
          message:
            'Pipe orders is flapping: 4 state changes in 15 min (now Failed); quiet until stable',
        }),
      ],
    });
  });

  it('while flapping, changes are recorded and nothing is told', () => {
    const prev = record({ flapping: true, changes: [T0 - MIN], lastNotifiedAt: T0 - MIN });
    expect(decide(prev, seen('Failed'), T0, policy)).toEqual({
      next: { ...prev, state: 'Failed', since: T0, lastSeenAt: T0, changes: [T0 - MIN, T0] },
      notifications: [],
    });
  });

  it('an unknown state: one warning naming it; the same value again later is not told', () => {
    const now = T0 + MIN;
    const d = decide(record(), seen('Exploded'), now, policy);
    expect(d).toEqual({
      next: {
        ...record(),
        state: 'Exploded',
        since: now,
        lastSeenAt: now,
        changes: [now],
        lastNotifiedAt: now,
        unknownNotified: 'Exploded',
        announced: { kind: 'unknown', state: 'Exploded', severity: 'warning', since: now },
      },
      notifications: [
        notice({
          kind: 'unknown',
          severity: 'warning',
          from: 'Running',
          to: 'Exploded',
          at: now,
          since: now,
          message: 'Pipe orders reports an unknown state "Exploded" (was Running)',
        }),
      ],
    });
    const back = decide(
      record({ state: 'Provisioning', unknownNotified: 'Exploded' }),
      seen('Exploded'),
      now,
      policy,
    );
    expect(back.notifications).toEqual([]);
    expect(back.next.state).toBe('Exploded');
    // Another unknown value is told.
    const other = decide(
      record({ state: 'Provisioning', unknownNotified: 'Exploded' }),
      seen('Imploded'),
      now,
      policy,
    );
    expect(other.notifications.map((n) => n.kind)).toEqual(['unknown']);
  });

  it('back to healthy after an announced problem: a recovery that closes it', () => {
    const prev = record({
      state: 'Failed',
      announced: { kind: 'transition', state: 'Failed', severity: 'critical', since: T0 },
    });
    const now = T0 + MIN;
    expect(decide(prev, seen('Running'), now, policy)).toEqual({
      next: {
        ...prev,
        state: 'Running',
        since: now,
        lastSeenAt: now,
        changes: [now],
        announced: undefined,
        lastNotifiedAt: now,
      },
      notifications: [
        notice({
          kind: 'recovery',
          severity: 'info',
          from: 'Failed',
          to: 'Running',
          at: now,
          since: now,
          message: 'Pipe orders recovered: Failed -> Running',
        }),
      ],
    });
  });

  it('into a transitional state: quiet, and an announced problem stays open', () => {
    const announced = {
      kind: 'transition' as const,
      state: 'Failed',
      severity: 'critical' as const,
      since: T0,
    };
    const prev = record({ state: 'Failed', announced });
    const d = decide(prev, seen('Provisioning'), T0 + MIN, policy);
    expect(d.notifications).toEqual([]);
    expect(d.next.announced).toEqual(announced);
    expect(d.next.lastNotifiedAt).toBeUndefined();
  });

  it('healthy to healthy without a problem: quiet', () => {
    const d = decide(record(), seen('Completed'), T0 + MIN, policy);
    expect(d.notifications).toEqual([]);
    expect(d.next.state).toBe('Completed');
  });
});

describe('policy', () => {
  it('defaults match the documented values', () => {
    expect(policy).toMatchObject({
      reminderIntervalMs: 4 * HOUR,
      flapMaxChanges: 3,
      flapWindowMs: 15 * MIN,
      flapStableMs: 15 * MIN,
      announceNew: true,
      goneRetentionMs: 30 * 86_400_000,
      stuckAfterMs: 30 * MIN,
    });
  });

  it('a bad value is one message naming the field', () => {
    expect(() => parsePolicy({ flapMaxChanges: 0 })).toThrow(
      /^invalid watchdog policy: .*flapMaxChanges/,
    );
    try {
      parsePolicy({ flapWindowMs: -1 });
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ name: 'ValidationError', source: 'watchdog policy' });
      expect((error as Error).message).toContain('flapWindowMs');
    }
  });
});

describe('policy errors', () => {
  it('name every bad field, separated so each can be read', () => {
    expect(() => parsePolicy({ flapMaxChanges: 0, flapWindowMs: -1 })).toThrow(
      /flapMaxChanges[^;]*; .*flapWindowMs|flapWindowMs[^;]*; .*flapMaxChanges/,
    );
  });
});
