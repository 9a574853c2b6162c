/**
 * The rules every watched condition follows, on a subject that is not a pipe (two states,
 * `Ok` healthy and `Bad` a warning): what any new watcher gets for free.
 */
import { describe, expect, it } from 'vitest';
import {
  conditionPolicySchema,
  followCondition,
  type Standing,
  type Told,
  type Watched,
} from '../../../lib/watch/condition';

const MIN = 60_000;
const policy = conditionPolicySchema.parse({
  reminderIntervalMs: 60 * MIN,
  flapMaxChanges: 3,
  flapWindowMs: 15 * MIN,
  flapStableMs: 15 * MIN,
});
const standing = (state: string): Standing => (state === 'Bad' ? 'warning' : 'healthy');

/** Feed (minute, state) steps from an `Ok` record; returns what each step told. */
function follow(steps: [number, string][]) {
  let record: Watched = { state: 'Ok', since: 0, changes: [], flapping: false };
  const told: (Told<string> | undefined)[] = [];
  for (const [minute, state] of steps) {
    const outcome = followCondition(
      record,
      { state, standing: standing(state) },
      minute * MIN,
      policy,
    );
    record = outcome.next;
    told.push(outcome.told);
  }
  const brief = told.map((t) => (t ? `${t.kind}:${t.severity}:${t.from}->${t.to}` : '-'));
  return { record, told, brief };
}

describe('a watched condition', () => {
  it('a problem is told once, reminded after the interval, and its end told as a recovery', () => {
    const { brief, told } = follow([
      [1, 'Bad'],
      [30, 'Bad'],
      [61, 'Bad'],
      [90, 'Bad'],
      [125, 'Bad'],
      [130, 'Ok'],
      [200, 'Ok'],
    ]);
    expect(brief).toEqual([
      'transition:warning:Ok->Bad',
      '-',
      'reminder:warning:Bad->Bad',
      '-',
      'reminder:warning:Bad->Bad',
      'recovery:info:Bad->Ok',
      '-',
    ]);
    // A reminder carries when the problem began.
    expect(told[4]?.since).toBe(1 * MIN);
  });

  it('changing state too often is told once as flapping, then quiet until stable', () => {
    const { brief, record } = follow([
      [1, 'Bad'],
      [2, 'Ok'],
      [3, 'Bad'],
      [4, 'Ok'],
      [5, 'Bad'],
      [10, 'Bad'],
      [21, 'Bad'],
    ]);
    expect(brief).toEqual([
      'transition:warning:Ok->Bad',
      'recovery:info:Bad->Ok',
      'transition:warning:Ok->Bad',
      'flapping:warning:Bad->Ok',
      '-',
      '-',
      // Stable again, in a problem state: told from the state flapping was announced in.
      'transition:warning:Ok->Bad',
    ]);
    expect(record.flapping).toBe(false);
    expect(record.announced).toMatchObject({ state: 'Bad', severity: 'warning' });
  });

  it('a flapping episode that settles healthy ends in a recovery', () => {
    const { brief } = follow([
      [1, 'Bad'],
      [2, 'Ok'],
      [3, 'Bad'],
      [4, 'Ok'],
      [30, 'Ok'],
    ]);
    expect(brief.slice(3)).toEqual(['flapping:warning:Bad->Ok', 'recovery:info:Ok->Ok']);
  });

  it('a healthy change with no problem announced says nothing; the time of every notice is kept', () => {
    const { brief, record } = follow([
      [1, 'Ok'],
      [5, 'Bad'],
    ]);
    expect(brief).toEqual(['-', 'transition:warning:Ok->Bad']);
    expect(record.lastNotifiedAt).toBe(5 * MIN);
  });
});
