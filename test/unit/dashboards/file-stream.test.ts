/**
 * The sync's file stream: memory holds the read window, never the whole source. A source that
 * counts its reads in flight shows the window is kept; an oversized file (known from the
 * listing) is never read; an aborted run reads nothing more.
 */
import { describe, expect, it } from 'vitest';
import { streamFiles } from '../../../lib/dashboards/file-stream';
import type { DashboardSource } from '../../../lib/dashboards/load';
import { FILE_LIMITS } from '../../../lib/dashboards/parse';

/** A source of `n` files whose reads resolve on a later turn, counting how many overlap. */
function countingSource(n: number, sizes: Record<string, number> = {}) {
  const files = Array.from({ length: n }, (_, i) => `d${i}.yaml`);
  const seen = { inFlight: 0, most: 0, reads: [] as string[] };
  const source: DashboardSource = {
    label: 'memory',
    list: () => Promise.resolve(files),
    async read(file) {
      seen.reads.push(file);
      seen.inFlight += 1;
      seen.most = Math.max(seen.most, seen.inFlight);
      await new Promise((resolve) => setTimeout(resolve, 1));
      seen.inFlight -= 1;
      return `text of ${file}`;
    },
    size: (file) => Promise.resolve(sizes[file]),
  };
  return { files, seen, source };
}

describe('streamFiles', () => {
  it('reads at most the window at once and gives every step its own text, in file order', async () => {
    const { files, seen, source } = countingSource(100);
    const steps = await streamFiles(source, files, (f) => f.text.length, { window: 4 });
    expect(seen.most).toBe(4);
    expect(seen.reads).toHaveLength(100);
    expect(steps).toEqual(files.map((f) => `text of ${f}`.length));
  });

  it('never reads a file the listing says is over the size limit: its step gets its bytes', async () => {
    const big = FILE_LIMITS.maxFileBytes + 1;
    const { files, seen, source } = countingSource(3, { 'd1.yaml': big });
    const steps = await streamFiles(source, files, (f) => f.bytes ?? f.text);
    expect(seen.reads).toEqual(['d0.yaml', 'd2.yaml']);
    expect(steps).toEqual(['text of d0.yaml', big, 'text of d2.yaml']);
  });

  it('stops reading once the run is aborted, and says why', async () => {
    const { files, seen, source } = countingSource(50);
    const abort = new AbortController();
    const run = streamFiles(
      source,
      files,
      (f) => {
        if (f.file === 'd3.yaml') abort.abort(new Error('deadline'));
      },
      { window: 2, signal: abort.signal },
    );
    await expect(run).rejects.toThrow('deadline');
    expect(seen.reads.length).toBeLessThan(8);
  });
});
