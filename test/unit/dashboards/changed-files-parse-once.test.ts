/**
 * The sync's changed-files reader parses each changed file once, whatever its kind: a
 * dashboard file that mentions `kind:` and a webhook file alike (parse.ts's parseFile is the
 * real one, counted per file).
 */
import { describe, expect, it, vi } from 'vitest';
import { loadChangedFiles } from '../../../lib/dashboards/changed-files';
import type { DashboardSource } from '../../../lib/dashboards/load';
import type * as Parse from '../../../lib/dashboards/parse';

const parsedFiles = vi.hoisted(() => [] as string[]);
vi.mock('../../../lib/dashboards/parse', async (importOriginal) => {
  const real = await importOriginal<typeof Parse>();
  return {
    ...real,
    parseFile: (file: Parameters<typeof real.parseFile>[0]) => {
      parsedFiles.push(file.file);
      return real.parseFile(file);
    },
  };
});

const FILES: Record<string, string> = {
  // A dashboard whose text says `kind:` (a tile's series field), so a cheap look cannot tell.
  'kinded.yaml': `name: Kinded
tiles:
  - name: Rows
    x: 0
    y: 0
    w: 8
    h: 4
    series:
      - { type: number, source: Logs, aggFn: count, where: 'kind: x', whereLanguage: lucene }
`,
  'search.yaml': `kind: savedSearch
name: Errors
source: Logs
where: 'level:error'
whereLanguage: lucene
`,
};

const source: DashboardSource = {
  label: 'memory',
  list: () => Promise.resolve(Object.keys(FILES)),
  read: (file) => Promise.resolve(FILES[file]),
};

describe('loadChangedFiles', () => {
  it('parses each changed file once, dashboards and other kinds alike', async () => {
    const loaded = await loadChangedFiles(source);
    expect(loaded.desired.map((d) => d.name)).toEqual(['Kinded']);
    expect(loaded.objects?.savedSearches.map((s) => s.name)).toEqual(['Errors']);
    expect(parsedFiles.sort()).toEqual(['kinded.yaml', 'search.yaml']);
  });
});
