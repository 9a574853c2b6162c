import { describe, expect, it } from 'vitest';
import { classifyState, parseClassifyOptions } from '../../../lib/pipes/classify';
import { ValidationError } from '../../../lib/errors';

const defaults = parseClassifyOptions();

describe('classifyState (default model)', () => {
  it.each([
    ['Running', 'healthy', undefined],
    ['Completed', 'healthy', undefined],
    ['Snapshot', 'healthy', undefined],
    ['Provisioning', 'transitional', undefined],
    ['Resync', 'transitional', undefined],
    ['Degraded', 'degraded', 'warning'],
    ['Failed', 'failed', 'critical'],
    ['InternalError', 'failed', 'critical'],
    ['Stopped', 'stopped', 'warning'],
    ['Paused', 'stopped', 'warning'],
    ['Unknown', 'unknown', 'warning'],
    ['Exploded', 'unknown', 'warning'],
  ])('%s -> %s / %s', (state, category, severity) => {
    const c = classifyState(state, 'p1', defaults);
    expect(c.category).toBe(category);
    expect(c.severity).toBe(severity);
  });

  it('marks documented states as known and others not', () => {
    expect(classifyState('Unknown', 'p1', defaults).known).toBe(true);
    expect(classifyState('Exploded', 'p1', defaults).known).toBe(false);
  });

  it('a stop is not a problem for a pipe listed as expected-stopped', () => {
    const options = parseClassifyOptions({ expectedStopped: ['p1'] });
    expect(classifyState('Stopped', 'p1', options).severity).toBeUndefined();
    expect(classifyState('Stopped', 'p2', options).severity).toBe('warning');
  });

  it('accepts a custom model', () => {
    const options = parseClassifyOptions({ degraded: ['Degraded', 'Lagging'] });
    expect(classifyState('Lagging', 'p', options).category).toBe('degraded');
    expect(options.stuckAfterMs).toBe(30 * 60_000);
  });
});

describe('parseClassifyOptions', () => {
  it('rejects a typo in an option name, naming it', () => {
    const typo: unknown = { stuckAfterMss: 5 };
    expect(() => parseClassifyOptions(typo as Parameters<typeof parseClassifyOptions>[0])).toThrow(
      /stuckAfterMss/,
    );
  });
  it('rejects a bad threshold, naming the field', () => {
    expect(() => parseClassifyOptions({ stuckAfterMs: -1 })).toThrow(/stuckAfterMs/);
  });
  it('rejects a state listed in two categories', () => {
    expect(() => parseClassifyOptions({ failed: ['Failed', 'Running'] })).toThrow(ValidationError);
    expect(() => parseClassifyOptions({ failed: ['Failed', 'Running'] })).toThrow(
      /Running.*healthy and failed/,
    );
  });
});
