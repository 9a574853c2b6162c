import { describe, expect, it } from 'vitest';
import {
  decideProgress,
  increase,
  progressPolicySchema,
  ratePerMinute,
} from '../../../lib/pipes/progress';
import type { ProgressReading } from '../../../lib/pipes/progress-record';
import type { PipeRecord } from '../../../lib/pipes/types';
import { conditionPolicySchema } from '../../../lib/watch/condition';
import type { PipeNotice } from '../../../lib/watch/subjects/pipe';
import { pipeRecord } from '../../support/pipe-record';

const MIN = 60_000;
const T0 = Date.parse('2026-08-03T09:00:00Z');
const conditions = conditionPolicySchema.parse({});

/** A reading at a minute: `[minute, sent, fetched, errors?, state?]`; undefined = metric absent. */
type Step = [
  minute: number,
  sent: number | undefined,
  fetched: number | undefined,
  errors?: number,
  state?: string,
];

function record(state = 'Running'): PipeRecord {
  return pipeRecord(T0, { state });
}

/** Feeds the steps through decideProgress (every 5 minutes unless the steps say otherwise). */
function run(
  steps: Step[],
  policyInput: Parameters<typeof progressPolicySchema.parse>[0] = {},
  counter: ProgressReading['counter'] = 'events',
) {
  const policy = progressPolicySchema.parse(policyInput);
  let current = record();
  const out: PipeNotice[] = [];
  const at: number[] = [];
  for (const [minute, sent, fetched, errors = 0, state = 'Running'] of steps) {
    const reading: ProgressReading = { at: T0 + minute * MIN, counter };
    if (sent !== undefined) reading.sent = sent;
    if (fetched !== undefined) reading.fetched = fetched;
    reading.errors = errors;
    current = { ...current, state };
    const decided = decideProgress(current, reading, policy, conditions);
    current = { ...current, progress: decided.progress };
    out.push(...decided.notifications);
    at.push(...decided.notifications.map(() => minute));
  }
  return { out, at, record: current };
}

/** Every 5 minutes from `from` to `to`: sent and fetched as functions of the minute. */
function timeline(
  from: number,
  to: number,
  sent: (m: number) => number | undefined,
  fetched: (m: number) => number | undefined,
  errors: (m: number) => number = () => 0,
  state: (m: number) => string = () => 'Running',
): Step[] {
  const steps: Step[] = [];
  for (let m = from; m <= to; m += 5) steps.push([m, sent(m), fetched(m), errors(m), state(m)]);
  return steps;
}

const brief = (n: PipeNotice) => `${n.kind}:${n.severity}:${n.from}->${n.to}`;

describe('counters', () => {
  it.each([
    [100, 160, 60],
    [100, 100, 0],
    // A decrease is a reset: counted from zero, never negative.
    [1000, 50, 50],
    [1000, 0, 0],
    [undefined, 10, undefined],
    [10, undefined, undefined],
  ])('increase(%s, %s) = %s', (before, after, grown) => {
    expect(increase(before, after)).toBe(grown);
  });

  it('a rate is per minute between two readings; a reset counts from zero', () => {
    expect(ratePerMinute({ at: 0, value: 100 }, { at: 5 * MIN, value: 600 })).toBe(100);
    expect(ratePerMinute({ at: 0, value: 900 }, { at: 5 * MIN, value: 500 })).toBe(100);
    expect(ratePerMinute(undefined, { at: 5 * MIN, value: 500 })).toBeUndefined();
    expect(ratePerMinute({ at: 5 * MIN, value: 1 }, { at: 5 * MIN, value: 2 })).toBeUndefined();
  });
});

describe('decideProgress: what is told over a timeline (5-minute runs, 30-minute stall)', () => {
  const grows =
    (perMinute: number, start = 0) =>
    (m: number) =>
      start + perMinute * m;
  const flat = (value: number) => () => value;

  it.each<[string, Step[], Record<string, unknown>, string[], number[]]>([
    ['a steady flow: nothing', timeline(0, 120, grows(600), grows(600)), {}, [], []],
    [
      'fetched 100/min, nothing sent: one critical stall at 30 min, not reminded at 35 or 40',
      timeline(0, 40, flat(5000), grows(100, 5000)),
      {},
      ['stalled:critical:moving->piling-up'],
      [30],
    ],
    [
      'the stall ends when something is sent: one recovery',
      [
        ...timeline(0, 40, flat(5000), grows(100, 5000)),
        ...timeline(45, 60, (m) => 5000 + 600 * (m - 40), grows(100, 5000)),
      ],
      {},
      ['stalled:critical:moving->piling-up', 'recovery:info:piling-up->moving'],
      [30, 45],
    ],
    [
      'the backlog stopped growing: a warning stall, not critical',
      timeline(0, 40, flat(5000), (m) => (m <= 10 ? 5000 + 100 * m : 6000)),
      {},
      ['stalled:warning:moving->stalled'],
      [30],
    ],
    [
      'a critical stall stays critical when fetching stops (no noise going down)',
      timeline(0, 60, flat(5000), (m) => (m <= 35 ? 5000 + 100 * m : 8500)),
      {},
      ['stalled:critical:moving->piling-up'],
      [30],
    ],
    [
      'a quiet pipe not expected to have traffic: nothing in 24 h',
      timeline(0, 24 * 60, flat(7000), flat(9000)),
      {},
      [],
      [],
    ],
    [
      'a quiet pipe expected to have traffic (by glob): one quiet warning at 30 min',
      timeline(0, 60, flat(7000), flat(9000)),
      { expectTraffic: ['orders-*'] },
      ['quiet:warning:moving->quiet'],
      [30],
    ],
    [
      'quiet for hours, then data arrives and waits: stalled 30 min after it arrived, not at once',
      timeline(0, 300, flat(7000), (m) => (m < 240 ? 9000 : 9000 + 50 * (m - 235))),
      {},
      ['stalled:critical:moving->piling-up'],
      [265],
    ],
    [
      'a sent counter that resets (a restart) has moved: no stall',
      timeline(
        0,
        60,
        (m) => (m < 30 ? 1000 + 600 * m : 600 * (m - 29)),
        (m) => 1000 + 600 * m,
      ),
      {},
      [],
      [],
    ],
    [
      'a counter reset to zero that stays there is flat: stalled while fetched grows',
      timeline(0, 45, (m) => (m < 5 ? 1000 : 0), grows(100, 3000)),
      {},
      ['stalled:critical:moving->piling-up'],
      [30],
    ],
    [
      'no fetched counter: a flat sent counter cannot be told from quiet (told only if expected)',
      timeline(0, 60, flat(5000), () => undefined),
      {},
      [],
      [],
    ],
    [
      'no sent counter at all: no progress decision',
      timeline(0, 60, () => undefined, grows(100)),
      { expectTraffic: ['p1'] },
      [],
      [],
    ],
    [
      'a pipe that is not Running is not stalled; running again, its clock starts over',
      timeline(0, 50, flat(5000), grows(100, 5000), undefined, (m) =>
        m < 20 ? 'Stopped' : 'Running',
      ),
      {},
      ['stalled:critical:moving->piling-up'],
      [45],
    ],
    [
      'a stall that lasts: reminded after 4 h',
      timeline(0, 300, flat(5000), grows(100, 5000)),
      {},
      ['stalled:critical:moving->piling-up', 'reminder:critical:piling-up->piling-up'],
      [30, 270],
    ],
  ])('%s', (_name, steps, policy, told, minutes) => {
    const { out, at } = run(steps, policy);
    expect(out.map(brief)).toEqual(told);
    expect(at).toEqual(minutes);
  });

  it('the stall is dated from when the data began to wait; the notice carries the last two readings and the rates', () => {
    const { out } = run(timeline(0, 30, flat(5000), grows(100, 5000)));
    const [stall] = out;
    expect(stall).toMatchObject({
      subject: 'pipe',
      kind: 'stalled',
      severity: 'critical',
      condition: 'progress',
      dedupKey: 'pipe/org/svc/p1/progress',
      resolves: false,
      since: new Date(T0).toISOString(),
      at: new Date(T0 + 30 * MIN).toISOString(),
      progress: {
        metric: 'ClickPipes_SentEvents_Total',
        readings: [
          { at: new Date(T0 + 25 * MIN).toISOString(), value: 5000 },
          { at: new Date(T0 + 30 * MIN).toISOString(), value: 5000 },
        ],
        ratePerMinute: 0,
        fetchedPerMinute: 100,
      },
    });
    expect(stall.message).toBe(
      'Pipe orders-kafka has sent nothing for 30 min while it keeps fetching (100 events/min): data is piling up',
    );
  });

  it('the recovery resolves the stall under the same dedup key', () => {
    const { out } = run([...timeline(0, 30, flat(5000), grows(100, 5000)), [35, 8000, 8500]]);
    expect(out.map((n) => [n.kind, n.dedupKey, n.resolves])).toEqual([
      ['stalled', 'pipe/org/svc/p1/progress', false],
      ['recovery', 'pipe/org/svc/p1/progress', true],
    ]);
    expect(out[1].message).toBe('Pipe orders-kafka is moving again (600 events/min sent)');
  });

  it('a database pipe is read by its batch ids', () => {
    const { out } = run(timeline(0, 30, flat(40), grows(1, 40)), {}, 'batches');
    expect(out.map(brief)).toEqual(['stalled:critical:moving->piling-up']);
    expect(out[0].progress?.metric).toBe('ClickPipes_LastSentBatchId');
    expect(out[0].message).toMatch(/1 batches\/min/);
  });

  it('the first reading is a silent baseline, whatever it shows', () => {
    const { out, record: r } = run([[0, 0, 1_000_000, 5000]]);
    expect(out).toEqual([]);
    expect(r.progress).toMatchObject({ sentSince: T0, fetchedSince: T0, readings: [{ at: T0 }] });
  });

  it('keeps a bounded number of readings', () => {
    const { record: r } = run(timeline(0, 120, grows(600), grows(600)));
    expect(r.progress!.readings).toHaveLength(6);
    expect(r.progress!.readings.at(-1)!.at).toBe(T0 + 120 * MIN);
  });

  it('after an idle service the clocks start over (nothing moved while it slept)', () => {
    const policy = progressPolicySchema.parse({});
    let r = record();
    const read = (minute: number, sent: number, fetched: number): ProgressReading => ({
      at: T0 + minute * MIN,
      counter: 'events',
      sent,
      fetched,
      errors: 0,
    });
    r = { ...r, progress: decideProgress(r, read(0, 10, 10), policy, conditions).progress };
    // Two hours later (idle in between), fetched has grown, sent not yet.
    const woke = decideProgress(r, read(120, 10, 50), policy, conditions, { restart: true });
    expect(woke.notifications).toEqual([]);
    expect(woke.progress).toMatchObject({ sentSince: T0 + 120 * MIN, readings: [{ sent: 10 }] });
  });
});

describe('decideProgress: errors', () => {
  it.each<[string, (m: number) => number, Record<string, unknown>, string[], number[]]>([
    [
      'errors growing every run: one erroring warning, then recovery 15 min after they stop',
      (m) => (m <= 20 ? 5 * m : 100),
      {},
      ['erroring:warning:ok->erroring', 'recovery:info:erroring->ok'],
      [5, 35],
    ],
    [
      'errors every other run: one erroring, no recovery between them',
      (m) => 10 * Math.floor(m / 10),
      {},
      ['erroring:warning:ok->erroring'],
      [10],
    ],
    ['errors within the limit per run: nothing', (m) => 5 * m, { errorsPerRun: 25 }, [], []],
    ['an error counter that resets is no negative count', (m) => (m < 30 ? 50 : 0), {}, [], []],
  ])('%s', (_name, errors, policy, told, minutes) => {
    const steps = timeline(
      0,
      60,
      (m) => 600 * m,
      (m) => 600 * m,
      errors,
    );
    const { out, at } = run(steps, policy);
    expect(out.map(brief)).toEqual(told);
    expect(at).toEqual(minutes);
    for (const n of out)
      expect(n).toMatchObject({ condition: 'errors', dedupKey: 'pipe/org/svc/p1/errors' });
  });

  it('an erroring notice carries the error counter and its rate', () => {
    const { out } = run(
      timeline(
        0,
        5,
        (m) => 600 * m,
        (m) => 600 * m,
        (m) => 5 * m,
      ),
    );
    expect(out[0].progress).toMatchObject({
      metric: 'ClickPipes_Errors_Total',
      readings: [{ value: 0 }, { value: 25 }],
      ratePerMinute: 5,
    });
    expect(out[0].message).toBe(
      'Pipe orders-kafka is erroring: 5 errors/min since the last run (more than 0 a run is erroring)',
    );
  });
});
