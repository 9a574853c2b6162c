import { describe, expect, it } from 'vitest';
import { costLine, planCost } from '../../../lib/dashboards/cost';

const counts = (update: number, alerts = 0) => ({
  counts: { create: 0, update, delete: 0 },
  alertCounts: { create: alerts, update: 0, delete: 0 },
});

describe('planCost', () => {
  it('counts one request per dashboard and alert written, and the windows they wait at the key rate', () => {
    expect(planCost(counts(0))).toMatchObject({ requests: 0, seconds: 0 });
    // The first 10 go at once; each further 10 waits one 10 s window.
    expect(planCost(counts(10))).toMatchObject({ requests: 10, seconds: 0 });
    expect(planCost(counts(11))).toMatchObject({ requests: 11, seconds: 10 });
    expect(planCost(counts(20, 5))).toMatchObject({ requests: 25, seconds: 20 });
    expect(planCost(counts(250), { limit: 100, windowMs: 60_000 }).seconds).toBe(120);
  });

  it('creates add one list, which finds what a concurrent apply created too', () => {
    const plan = {
      counts: { create: 3, update: 1, delete: 0 },
      alertCounts: counts(0).alertCounts,
    };
    expect(planCost(plan).requests).toBe(5);
  });

  it('says it in one line with the rate it assumed', () => {
    expect(costLine(planCost(counts(20, 5)))).toBe(
      "25 request(s), about 20 s at the key's rate limit (10 per 10 s)",
    );
  });
});
