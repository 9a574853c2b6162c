import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decide, parsePolicy, type Observation } from '../../../lib/pipes/decide';
import type { PipeRecord } from '../../../lib/pipes/types';
import type { PipeNotice } from '../../../lib/watch/subjects/pipe';

const MIN = 60_000;
const T0 = Date.parse('2025-01-01T00:00:00Z');
const policy = parsePolicy();

const pipe = (state: string): Observation => ({
  organizationId: 'org',
  serviceId: 'svc',
  pipeId: 'p1',
  pipeName: 'orders',
  state,
});

/** Feed (minute, state|'gone') steps through decide; returns every notification in order. */
function run(steps: [number, string][], p = policy) {
  let record: PipeRecord | undefined;
  const out: PipeNotice[] = [];
  for (const [minute, state] of steps) {
    const { next, notifications } = decide(
      record,
      state === 'gone' ? { gone: true } : pipe(state),
      T0 + minute * MIN,
      p,
    );
    record = next;
    out.push(...notifications);
  }
  return { out, record: record! };
}
const brief = (n: PipeNotice) => `${n.kind}:${n.severity}:${n.from}->${n.to}`;

describe('decide', () => {
  it('Running -> Failed -> Failed -> Running: new, one transition, one recovery', () => {
    const { out } = run([
      [0, 'Running'],
      [5, 'Failed'],
      [10, 'Failed'],
      [15, 'Running'],
    ]);
    expect(out.map(brief)).toEqual([
      'new:info:->Running',
      'transition:critical:Running->Failed',
      'recovery:info:Failed->Running',
    ]);
    expect(out[1]).toMatchObject({
      pipeId: 'p1',
      serviceId: 'svc',
      organizationId: 'org',
      pipeName: 'orders',
      at: new Date(T0 + 5 * MIN).toISOString(),
    });
    expect(out[1].message).toMatch(/orders.*Running.*Failed/);
  });

  it('Provisioning stuck 40 min: one stuck warning after 30 min, then quiet', () => {
    const { out } = run([
      [0, 'Provisioning'],
      [10, 'Provisioning'],
      [25, 'Provisioning'],
      [31, 'Provisioning'],
      [40, 'Provisioning'],
    ]);
    expect(out.map(brief)).toEqual([
      'new:info:->Provisioning',
      'stuck:warning:Provisioning->Provisioning',
    ]);
    expect(out[1].at).toBe(new Date(T0 + 31 * MIN).toISOString());
  });

  it('Provisioning -> Running normally says nothing beyond the first sighting', () => {
    expect(
      run([
        [0, 'Provisioning'],
        [5, 'Running'],
        [10, 'Running'],
      ]).out.map(brief),
    ).toEqual(['new:info:->Provisioning']);
  });

  it('stuck then healthy gives a recovery', () => {
    const { out } = run([
      [0, 'Setup'],
      [35, 'Setup'],
      [40, 'Running'],
    ]);
    expect(out.map((n) => n.kind)).toEqual(['new', 'stuck', 'recovery']);
  });

  it('flapping 6 times in 10 min: damped to one flapping notice, then one recovery once stable', () => {
    const steps: [number, string][] = [[0, 'Running']];
    for (let i = 1; i <= 6; i++) steps.push([i * (10 / 6), i % 2 ? 'Stopped' : 'Running']);
    steps.push([20, 'Running'], [30, 'Running']);
    const { out } = run(steps);
    expect(out.map(brief)).toEqual([
      'new:info:->Running',
      'transition:warning:Running->Stopped',
      'recovery:info:Stopped->Running',
      'transition:warning:Running->Stopped',
      'flapping:warning:Stopped->Running',
      'recovery:info:Running->Running',
    ]);
    expect(out[5].at).toBe(new Date(T0 + 30 * MIN).toISOString());
  });

  it('a flapping pipe that settles in a bad state gets one transition notice', () => {
    const steps: [number, string][] = [
      [0, 'Running'],
      [1, 'Failed'],
      [2, 'Running'],
      [3, 'Failed'],
      [4, 'Running'],
      [5, 'Failed'],
      [21, 'Failed'],
    ];
    const { out, record } = run(steps);
    expect(out.map((n) => n.kind)).toEqual([
      'new',
      'transition',
      'recovery',
      'transition',
      'flapping',
      'transition',
    ]);
    expect(out.at(-1)!.severity).toBe('critical');
    expect(record.flapping).toBe(false);
  });

  it('an unknown state is reported once, naming the value', () => {
    const { out } = run([
      [0, 'Running'],
      [5, 'Exploded'],
      [10, 'Exploded'],
      [300, 'Exploded'],
    ]);
    expect(out.map(brief)).toEqual(['new:info:->Running', 'unknown:warning:Running->Exploded']);
    expect(out[1].message).toContain('"Exploded"');
  });

  it('a deleted pipe is reported once, when the second listing in a row lacks it', () => {
    const { out, record } = run([
      [0, 'Running'],
      [5, 'gone'],
      [10, 'gone'],
      [15, 'gone'],
    ]);
    // Kept 30 days for DynamoDB's TTL (epoch seconds), then forgotten.
    expect(record.expiresAt).toBe(Math.floor((T0 + 10 * MIN + 30 * 86_400_000) / 1000));
    expect(out.map(brief)).toEqual(['new:info:->Running', 'gone:warning:Running->']);
    expect(out[1].at).toBe(new Date(T0 + 10 * MIN).toISOString());
  });

  it('a pipe missing from one listing and back the next is no notice at all (a blip)', () => {
    const { out, record } = run([
      [0, 'Running'],
      [5, 'gone'],
      [10, 'Running'],
      [15, 'gone'],
      [20, 'Running'],
    ]);
    expect(out.map(brief)).toEqual(['new:info:->Running']);
    expect(record).toMatchObject({ gone: false, missedRuns: 0 });
  });

  it('a pipe that comes back after being gone is announced as new again', () => {
    expect(
      run([
        [0, 'Running'],
        [5, 'gone'],
        [10, 'gone'],
        [15, 'Running'],
      ]).out.map((n) => n.kind),
    ).toEqual(['new', 'gone', 'new']);
  });

  it('reminds every 4 h while bad, keeping the severity', () => {
    const { out } = run([
      [0, 'Running'],
      [1, 'Failed'],
      [120, 'Failed'],
      [241, 'Failed'],
      [300, 'Failed'],
      [481, 'Failed'],
    ]);
    expect(out.map(brief)).toEqual([
      'new:info:->Running',
      'transition:critical:Running->Failed',
      'reminder:critical:Failed->Failed',
      'reminder:critical:Failed->Failed',
    ]);
    expect(out[2].since).toBe(new Date(T0 + MIN).toISOString());
  });

  it('no recovery when no problem was announced; expected-stopped pipes are quiet', () => {
    const p = parsePolicy({ expectedStopped: ['p1'] });
    expect(
      run(
        [
          [0, 'Running'],
          [5, 'Stopped'],
          [10, 'Running'],
        ],
        p,
      ).out.map((n) => n.kind),
    ).toEqual(['new']);
  });

  it('a new pipe already failed is announced critical and recovers later', () => {
    const { out } = run([
      [0, 'Failed'],
      [5, 'Running'],
    ]);
    expect(out.map(brief)).toEqual(['new:critical:->Failed', 'recovery:info:Failed->Running']);
  });

  it('a pipe first seen mid-transition is stuck counting from its updatedAt', () => {
    const first = decide(
      undefined,
      {
        ...(pipe('Provisioning') as object),
        updatedAt: new Date(T0 - 25 * MIN).toISOString(),
      } as Observation,
      T0,
      policy,
    );
    expect(first.next.since).toBe(T0 - 25 * MIN);
    expect(first.notifications[0].since).toBe(new Date(T0 - 25 * MIN).toISOString());
    expect('updatedAt' in first.next).toBe(false);
    const later = decide(first.next, pipe('Provisioning'), T0 + 6 * MIN, policy);
    expect(later.notifications.map((n) => n.kind)).toEqual(['stuck']);
    // A future or unparsable updatedAt is ignored.
    const odd = decide(
      undefined,
      { ...(pipe('Running') as object), updatedAt: 'soon' } as Observation,
      T0,
      policy,
    );
    expect(odd.next.since).toBe(T0);
  });

  it('announceNew=false keeps healthy new pipes quiet', () => {
    expect(run([[0, 'Running']], parsePolicy({ announceNew: false })).out).toEqual([]);
  });

  it('Failed -> Provisioning -> Failed notifies both failures, no recovery in between', () => {
    const { out } = run([
      [0, 'Running'],
      [5, 'Failed'],
      [20, 'Provisioning'],
      [40, 'Failed'],
    ]);
    expect(out.map((n) => n.kind)).toEqual(['new', 'transition', 'transition']);
  });

  it('rejects a typo in the policy', () => {
    const typo: unknown = { reminderInterval: 5 };
    expect(() => parsePolicy(typo as Parameters<typeof parsePolicy>[0])).toThrow(
      /reminderInterval/,
    );
  });

  it('property: never more than one notification per observation, ids unique', () => {
    const states = ['Running', 'Failed', 'Stopped', 'Provisioning', 'Degraded', 'Weird', 'gone'];
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 300 }), fc.constantFrom(...states)), {
          maxLength: 40,
        }),
        (raw) => {
          let minute = 0;
          let record: PipeRecord | undefined;
          const ids = new Set<string>();
          for (const [gap, state] of raw) {
            minute += gap;
            if (state === 'gone' && !record) continue;
            const d = decide(
              record,
              state === 'gone' ? { gone: true } : pipe(state),
              T0 + minute * MIN,
              policy,
            );
            expect(d.notifications.length).toBeLessThanOrEqual(1);
            for (const n of d.notifications) {
              expect(ids.has(n.id)).toBe(false);
              ids.add(n.id);
            }
            record = d.next;
          }
        },
      ),
    );
  });
});
