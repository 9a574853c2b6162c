/**
 * A watcher's notices: the subjects it tells about, how a stored notice of them is read and how
 * each renders. Each watcher makes its set of the subjects it has (the key sentinel: `key`
 * alone), so its bundle carries no other subject; the ledger, the delivery and every notifier
 * take whichever set they are given.
 */
import type * as z from 'zod/mini';
import type { Notice, RenderedNotice, RenderNotice } from './notice';

/** One subject's renderer (its file in subjects/ has its schema and renderer). */
export interface SubjectRenderer<N extends Notice> {
  readonly subject: N['subject'];
  /** Method syntax: a set holds subjects of different notices. */
  render(n: N): RenderedNotice;
}

interface NoticeSet<N extends Notice> {
  /** A stored notice of these subjects (and of any age: what came before is read as it was). */
  readonly schema: z.ZodMiniType<N>;
  /** Its subject's rendering; a notice of another subject has none (a bug of the caller). */
  readonly render: RenderNotice;
}

/**
 * The set of the subjects `renderers` render. `schema` reads a stored notice of them (made when
 * first parsed): one subject's schema alone, or their union by `subject` for several, so a
 * watcher of one subject carries no union.
 */
export function noticeSet<N extends Notice>(
  schema: () => z.ZodMiniType<N>,
  renderers: readonly SubjectRenderer<N>[],
): NoticeSet<N> {
  let made: z.ZodMiniType<N> | undefined;
  const bySubject = new Map(renderers.map((r) => [r.subject as string, r]));
  return {
    get schema() {
      return (made ??= schema());
    },
    render: (n) => {
      const renderer = bySubject.get(n.subject);
      if (!renderer) throw new TypeError(`no renderer for a notice of subject ${n.subject}`);
      return renderer.render(n as N);
    },
  };
}
