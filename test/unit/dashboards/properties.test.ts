import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyPlan } from '../../../lib/dashboards/apply';
import { planDashboards } from '../../../lib/dashboards/plan';
import { validateFiles } from '../../../lib/dashboards/validate';
import { AGG_FNS, SERIES_TYPES } from '../../../lib/schemas';
import { createFakeBackend } from './fake-backend';

/**
 * Tiles stacked in rows (cumulative y), so they never overlap; names unique within a
 * dashboard and drawn from a small pool, so two generated states share tiles often.
 */
const TILE_NAMES = ['cpu', 'mem', 'disk', 'net', 'io', 'latency p99', 'errors', 'Über'];
const tilesArb = fc
  .uniqueArray(fc.constantFrom(...TILE_NAMES), { maxLength: 8 })
  .chain((names) =>
    fc.tuple(
      ...names.map((name) =>
        fc
          .record({
            x: fc.integer({ min: 0, max: 23 }),
            wFrac: fc.double({ min: 0, max: 1, noNaN: true }),
            h: fc.integer({ min: 1, max: 6 }),
            gap: fc.integer({ min: 0, max: 2 }),
            asRatio: fc.option(fc.boolean(), { nil: undefined }),
            type: fc.constantFrom(...SERIES_TYPES),
            series: fc.array(
              fc.record(
                {
                  aggFn: fc.constantFrom(...AGG_FNS),
                  where: fc.string({ maxLength: 10 }),
                  groupBy: fc.array(fc.constantFrom('host', 'pod', 'svc'), { maxLength: 3 }),
                },
                { requiredKeys: [] },
              ),
              { maxLength: 3 },
            ),
          })
          .map((t) => ({ name, ...t })),
      ),
    ),
  )
  .map((raw) => {
    let y = 0;
    return raw.map(({ name, x, wFrac, h, gap, asRatio, type, series }) => {
      y += gap;
      const tile = {
        name,
        x,
        y,
        w: 1 + Math.floor(wFrac * (23 - x)),
        h,
        ...(asRatio !== undefined ? { asRatio } : {}),
        series: series.map((s) => ({ type, ...s })),
      };
      y += h;
      return tile;
    });
  });

const fileArb = fc.record({
  name: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => !s.includes('$')),
  tags: fc.uniqueArray(fc.stringMatching(/^[a-z]{1,10}$/), { maxLength: 4 }),
  tiles: tilesArb,
});

const filesArb = fc.array(fileArb, { minLength: 1, maxLength: 4 });

function validate(files: unknown[]) {
  const result = validateFiles(
    files.map((f, i) => ({ file: `d${i}.json`, text: JSON.stringify(f) })),
  );
  expect(result.issues).toEqual([]);
  return result.dashboards;
}

describe('properties', () => {
  it('plan after apply is empty, and tiles that stay keep their ids, over generated dashboards', async () => {
    await fc.assert(
      fc.asyncProperty(filesArb, filesArb, async (first, second) => {
        const fake = createFakeBackend();
        await applyPlan(await planDashboards(validate(first), fake), fake);
        const idsBefore = new Map(
          fake.dashboards.flatMap((d) => d.tiles.map((t) => [`${d.id}/${t.name}`, t.id])),
        );

        const desired = validate(second);
        const applied = await applyPlan(await planDashboards(desired, fake, { prune: true }), fake);
        expect(applied.ok).toBe(true);
        for (const d of fake.dashboards) {
          for (const t of d.tiles) {
            const before = idsBefore.get(`${d.id}/${t.name}`);
            if (before !== undefined) expect(t.id).toBe(before);
          }
        }
        fake.calls.length = 0;
        const after = await planDashboards(desired, fake, { prune: true });
        expect(after.pending).toBe(false);
        expect(fake.calls).toEqual(['list']);
        expect(fake.dashboards).toHaveLength(desired.length);
      }),
      { numRuns: 60 },
    );
  });

  it('validation rejects every out-of-bounds grid', () => {
    const bad = fc.oneof(
      fc.record({
        x: fc.integer({ min: 24, max: 1000 }),
        y: fc.nat(50),
        w: fc.constant(1),
        h: fc.constant(1),
      }),
      fc.record({
        x: fc.integer({ min: -1000, max: -1 }),
        y: fc.nat(50),
        w: fc.constant(1),
        h: fc.constant(1),
      }),
      fc.record({
        x: fc.constant(0),
        y: fc.nat(50),
        w: fc.oneof(fc.integer({ min: -10, max: 0 }), fc.integer({ min: 25, max: 500 })),
        h: fc.constant(1),
      }),
      fc.integer({ min: 1, max: 23 }).chain((x) =>
        fc.record({
          x: fc.constant(x),
          y: fc.nat(50),
          w: fc.integer({ min: 25 - x, max: 24 }),
          h: fc.constant(1),
        }),
      ),
      fc.record({
        x: fc.nat(23),
        y: fc.integer({ min: -1000, max: -1 }),
        w: fc.constant(1),
        h: fc.constant(1),
      }),
      fc.record({
        x: fc.nat(23),
        y: fc.nat(50),
        w: fc.constant(1),
        h: fc.integer({ min: -10, max: 0 }),
      }),
      fc.record({
        x: fc.nat(23),
        y: fc.nat(50),
        w: fc.constant(1),
        h: fc.double({ min: 1.01, max: 9.99, noNaN: true }),
      }),
    );
    fc.assert(
      fc.property(bad, fc.nat(3), (tile, index) => {
        const tiles = Array.from({ length: index }, (_, i) => ({
          name: `ok${i}`,
          x: 0,
          y: 1000 + i,
          w: 1,
          h: 1,
        }));
        tiles.push({ name: 'bad', ...tile });
        const { dashboards, issues } = validateFiles([
          { file: 'g.json', text: JSON.stringify({ name: 'g', tiles }) },
        ]);
        expect(dashboards).toEqual([]);
        expect(issues.length).toBeGreaterThan(0);
        for (const issue of issues) {
          expect(issue.path.startsWith(`tiles[${index}]`)).toBe(true);
          expect(issue.line).toBe(1);
        }
      }),
      { numRuns: 300 },
    );
  });
});
