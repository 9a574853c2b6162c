import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSavedPlan, writeSavedPlan } from '../../../lib/dashboards/saved-plan';
import type { Plan } from '../../../lib/dashboards/plan';

const plan: Plan = {
  changes: [],
  counts: { create: 0, update: 0, delete: 0, unchanged: 0, conflict: 0 },
  alertCounts: { create: 0, update: 0, delete: 0 },
  notes: [],
  pending: false,
  owner: 'default',
  alertsRead: false,
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'saved-plan-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('saved plans', () => {
  it('round-trips one plan per service, with the webhooks it writes as references and digests', async () => {
    const file = path.join(dir, 'two.json');
    const webhook = {
      key: 'hooks/pager',
      sourceFile: 'hooks/pager.yaml',
      name: 'Pager',
      service: 'generic' as const,
      templates: {
        url: '${PAGER_URL}',
        headers: { 'X-Token': { secret: 'prod/pager', key: 't' } },
      },
      digests: { url: 'AAAA', 'headers.X-Token': 'BBBB' },
    };
    const saved = {
      createdAt: '2026-11-25T00:00:00.000Z',
      owner: 'default',
      salt: 'c2FsdC1vZi10aGlzLXBsYW4',
      plans: [
        { service: 's1', plan, webhooks: [webhook] },
        { service: 's2', plan },
      ],
    };
    await writeSavedPlan(file, saved);
    expect(await readSavedPlan(file)).toEqual(saved);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ version: 3 });
  });

  it('reads a version-2 file (no webhook values, no salt) written by an older cloudops', async () => {
    const file = path.join(dir, 'v2.json');
    const v2 = { format: 'cloudops-dashboards-plan', version: 2, createdAt: 'c', owner: 'o' };
    await writeFile(file, JSON.stringify({ ...v2, plans: [{ service: 's1', plan }] }));
    expect(await readSavedPlan(file)).toEqual({
      createdAt: 'c',
      owner: 'o',
      plans: [{ service: 's1', plan }],
    });
  });

  it('still reads a version-1 file (one service) written by an older cloudops', async () => {
    const file = path.join(dir, 'v1.json');
    const v1 = {
      format: 'cloudops-dashboards-plan',
      version: 1,
      createdAt: '2026-11-01T00:00:00.000Z',
      service: 's1',
      owner: 'default',
      plan,
    };
    await writeFile(file, JSON.stringify(v1));
    expect(await readSavedPlan(file)).toEqual({
      createdAt: v1.createdAt,
      owner: 'default',
      plans: [{ service: 's1', plan }],
    });
  });

  it('an unknown version is one line naming the file', async () => {
    const file = path.join(dir, 'v9.json');
    await writeFile(file, JSON.stringify({ format: 'cloudops-dashboards-plan', version: 9 }));
    await expect(readSavedPlan(file)).rejects.toThrow(
      new RegExp(`^plan file ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: version: `),
    );
  });
});
