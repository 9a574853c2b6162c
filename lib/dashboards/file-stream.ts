/**
 * Files read a few at a time: each text goes through `step` (parse, validate, keep what planning
 * needs) and is then dropped, so memory holds the window and what the steps keep, never the
 * whole source. Generic over what a step makes of a file, so any file kind flows through it.
 */
import { FILE_LIMITS } from './parse';
import type { DashboardSource } from './load';
import type { SourceFile } from './types';

/** Reads in flight: enough to hide S3's latency, few enough to keep memory flat. */
export const READ_WINDOW = 16;

export interface StreamOptions {
  /** @default READ_WINDOW */
  readonly window?: number;
  /** Checked before each read: an aborted run reads nothing more (the reason is thrown). */
  readonly signal?: AbortSignal;
}

/**
 * `step` for every file, in file order of the results. A file larger than the limit (known from
 * the listing) is not read: its step gets an empty text and `bytes`, which parseFile reports.
 */
export async function streamFiles<T>(
  source: DashboardSource,
  files: readonly string[],
  step: (file: SourceFile) => T | Promise<T>,
  options: StreamOptions = {},
): Promise<T[]> {
  const results = new Array<T>(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      options.signal?.throwIfAborted();
      const file = files[i];
      const bytes = await source.size?.(file);
      results[i] = await (bytes !== undefined && bytes > FILE_LIMITS.maxFileBytes
        ? step({ file, text: '', bytes })
        : step({ file, text: await source.read(file) }));
    }
  };
  const workers = Math.max(1, Math.min(options.window ?? READ_WINDOW, files.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}
