import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyPlan } from '../../../lib/dashboards/apply';
import { planDashboards } from '../../../lib/dashboards/plan';
import { validateFiles } from '../../../lib/dashboards/validate';
import { AGG_FNS, SERIES_TYPES, tileWrite } from '../../../lib/schemas';
import { normalizeTile, tileChanges, tileDiff } from '../../../lib/dashboards/normalize';
import type { FileSeries } from '../../../lib/dashboards/file-schema';
import { createFakeBackend, type FakeBackend } from './fake-backend';

type Loose = Record<string, unknown>;

/**
 * The current service's answer for a tile written in series form: its config form
 * (API-FACTS), converted here independently of lib/dashboards/normalize.ts.
 */
function serviceConfig(tile: Loose): Loose {
  const series = tile.series as Loose[];
  const first = series[0];
  const type = first.type as string;
  if (type === 'markdown') return { displayType: 'markdown', markdown: first.content };
  if (type === 'search')
    return {
      displayType: 'search',
      sourceId: first.sourceId,
      select: ((first.fields as string[] | undefined) ?? []).join(','),
      where: first.where ?? '',
      ...(first.whereLanguage !== undefined ? { whereLanguage: first.whereLanguage } : {}),
    };
  return {
    displayType: type === 'time' ? (first.displayType ?? 'line') : type,
    sourceId: first.sourceId,
    select: (type === 'number' ? series.slice(0, 1) : series).map((s) => ({
      aggFn: s.aggFn,
      valueExpression: s.field ?? '',
      ...(s.alias !== undefined ? { alias: s.alias } : {}),
      aggCondition: s.where ?? '',
      ...(s.whereLanguage !== undefined ? { aggConditionLanguage: s.whereLanguage } : {}),
    })),
    groupBy: ((first.groupBy as string[] | undefined) ?? []).join(', '),
    ...(first.sortOrder !== undefined ? { sortOrder: first.sortOrder } : {}),
    where: '',
    asRatio: Boolean(tile.asRatio) && series.length === 2,
  };
}

/** A fake that stores every tile the way the current service answers it: config form only. */
function answeringInConfigForm(fake: FakeBackend): FakeBackend {
  const convert = (id: string) => {
    const d = fake.dashboards.find((x) => x.id === id)!;
    d.tiles = d.tiles.map((t) => {
      if (!t.series?.length) return t;
      const { series: _s, asRatio: _r, ...rest } = t;
      return {
        ...rest,
        config: { ...serviceConfig(t), name: t.name, extra: 'added by the service' },
      };
    });
    return structuredClone(d);
  };
  const create = fake.createDashboard.bind(fake);
  const update = fake.updateDashboard.bind(fake);
  fake.createDashboard = async (body, o) => convert((await create(body, o)).id);
  fake.updateDashboard = async (id, body, o) => convert((await update(id, body, o)).id);
  return fake;
}

/**
 * Tiles stacked in rows (cumulative y), so they never overlap; names unique within a
 * dashboard and drawn from a small pool, so two generated states share tiles often.
 */
const TILE_NAMES = ['cpu', 'mem', 'disk', 'net', 'io', 'latency p99', 'errors', 'Über'];
const SOURCE_IDS = ['64b000000000000000000001', '64b000000000000000000002'];

/** A valid series list of one type (the rules validate.ts enforces per type). */
const seriesArb: fc.Arbitrary<FileSeries[]> = fc
  .constantFrom(...SERIES_TYPES)
  .chain((type): fc.Arbitrary<FileSeries[]> => {
    if (type === 'markdown')
      return fc.record({ type: fc.constant(type), content: fc.string() }).map((s) => [s]);
    const common = {
      sourceId: fc.option(fc.constantFrom(...SOURCE_IDS), { nil: undefined }),
      where: fc.option(fc.string({ maxLength: 10 }), { nil: undefined }),
      whereLanguage: fc.option(fc.constantFrom('sql', 'lucene'), { nil: undefined }),
    };
    if (type === 'search')
      return fc
        .record(
          { type: fc.constant(type), ...common, fields: fc.array(fc.constantFrom('a', 'b')) },
          { requiredKeys: ['type'] },
        )
        .map((s) => [s]);
    const one = fc.record(
      {
        type: fc.constant(type),
        ...common,
        aggFn: fc.constantFrom(...AGG_FNS.filter((a) => a !== 'quantile')),
        field: fc.constantFrom('Duration', 'Body'),
        alias: fc.string({ maxLength: 5 }),
        ...(type === 'number'
          ? {}
          : { groupBy: fc.array(fc.constantFrom('host', 'pod', 'svc'), { maxLength: 3 }) }),
        ...(type === 'time' ? { displayType: fc.constantFrom('line', 'stacked_bar') } : {}),
        ...(type === 'table' ? { sortOrder: fc.constantFrom('asc', 'desc') } : {}),
      },
      { requiredKeys: ['type'] },
    );
    return fc.array(one, { minLength: 1, maxLength: type === 'number' ? 1 : 3 });
  });

/** A valid config-form query. */
const configArb = fc.oneof(
  fc.record({ displayType: fc.constant('markdown'), markdown: fc.string() }),
  fc.record(
    {
      displayType: fc.constantFrom('line', 'stacked_bar', 'table'),
      sourceId: fc.constantFrom(...SOURCE_IDS),
      select: fc.array(
        fc.oneof(
          fc.record({ aggFn: fc.constant('count') }),
          fc.record(
            {
              aggFn: fc.constantFrom('avg', 'sum', 'max'),
              valueExpression: fc.constantFrom('Duration', 'x'),
              where: fc.string({ maxLength: 5 }),
            },
            { requiredKeys: ['aggFn', 'valueExpression'] },
          ),
        ),
        { minLength: 1, maxLength: 3 },
      ),
      groupBy: fc.constantFrom('host', 'host, pod'),
      where: fc.string({ maxLength: 5 }),
    },
    { requiredKeys: ['displayType', 'sourceId', 'select'] },
  ),
);

const queryArb = fc.oneof(
  seriesArb.map((series) => ({ series })),
  configArb.map((config) => ({ config })),
);

/**
 * Tiles stacked in rows (cumulative y), so they never overlap; names unique within a
 * dashboard and drawn from a small pool, so two generated states share tiles often.
 */
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
            query: queryArb,
          })
          .map((t) => ({ name, ...t })),
      ),
    ),
  )
  .map((raw) => {
    let y = 0;
    return raw.map(({ name, x, wFrac, h, gap, asRatio, query }) => {
      y += gap;
      const tile = {
        name,
        x,
        y,
        w: 1 + Math.floor(wFrac * (23 - x)),
        h,
        ...(asRatio !== undefined &&
        'series' in query &&
        query.series.length === 2 &&
        query.series[0].type !== 'number'
          ? { asRatio }
          : {}),
        ...query,
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

async function validate(files: unknown[]) {
  const result = await validateFiles(
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
        await applyPlan(await planDashboards(await validate(first), fake), fake);
        const idsBefore = new Map(
          fake.dashboards.flatMap((d) => d.tiles.map((t) => [`${d.id}/${t.name}`, t.id])),
        );

        const desired = await validate(second);
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

  it('against a service answering in config form, a second plan is empty (both query forms in the files)', async () => {
    await fc.assert(
      fc.asyncProperty(filesArb, filesArb, async (first, second) => {
        const fake = answeringInConfigForm(createFakeBackend());
        await applyPlan(await planDashboards(await validate(first), fake), fake);
        const desired = await validate(second);
        const applied = await applyPlan(await planDashboards(desired, fake, { prune: true }), fake);
        expect(applied.ok).toBe(true);
        expect(fake.dashboards.flatMap((d) => d.tiles).every((t) => !t.series)).toBe(true);
        fake.calls.length = 0;
        const after = await planDashboards(desired, fake, { prune: true });
        expect(after.changes.filter((c) => c.action !== 'unchanged')).toEqual([]);
        expect(fake.calls).toEqual(['list']);
      }),
      { numRuns: 60 },
    );
  });

  it('a series tile and its config form compare equal in both directions; any edit shows', () => {
    fc.assert(
      fc.property(
        seriesArb,
        fc.boolean(),
        fc.constantFrom('where', 'groupBy', 'aggFn', 'sourceId'),
        (series, asRatio, edited) => {
          const desired = { name: 't', x: 0, y: 0, w: 6, h: 4, asRatio, series, alerts: [] };
          const observed = {
            id: 'i',
            name: 't',
            x: 0,
            y: 0,
            w: 6,
            h: 4,
            config: serviceConfig(desired),
          };
          expect(tileChanges(desired, observed)).toEqual([]);
          expect(tileDiff(normalizeTile(desired), normalizeTile(observed))).toEqual([]);
          // The other direction: a file in config form against a service answering series.
          const asFile = tileWrite.parse({
            ...desired,
            series: [],
            config: serviceConfig(desired),
          });
          expect(tileChanges(asFile, { ...desired, id: 'i' })).toEqual([]);

          const s0 = series[0] as Loose;
          const changed: Loose = { ...s0 };
          if (edited === 'where') changed.where = `${(s0.where as string | undefined) ?? ''} x:1`;
          if (edited === 'groupBy') changed.groupBy = [...((s0.groupBy as string[]) ?? []), 'zone'];
          if (edited === 'aggFn') changed.aggFn = s0.aggFn === 'max' ? 'min' : 'max';
          if (edited === 'sourceId')
            changed.sourceId = s0.sourceId === SOURCE_IDS[0] ? SOURCE_IDS[1] : SOURCE_IDS[0];
          const applicable =
            s0.type !== 'markdown' &&
            !(s0.type === 'search' && (edited === 'groupBy' || edited === 'aggFn')) &&
            !(s0.type === 'number' && edited === 'groupBy');
          fc.pre(applicable);
          const edit = tileWrite.parse({ ...desired, series: [changed, ...series.slice(1)] });
          expect(tileDiff(normalizeTile(edit), normalizeTile(observed))).toEqual(['series']);
          expect(tileChanges(edit, observed).length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('validation rejects every out-of-bounds grid', async () => {
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
    await fc.assert(
      fc.asyncProperty(bad, fc.nat(3), async (tile, index) => {
        const tiles = Array.from({ length: index }, (_, i) => ({
          name: `ok${i}`,
          x: 0,
          y: 1000 + i,
          w: 1,
          h: 1,
        }));
        tiles.push({ name: 'bad', ...tile });
        const { dashboards, issues } = await validateFiles([
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
