/** Pipes named in a setting: by id, by name, or by a name glob (`*` any run of characters, `?` one). */
import { globMatches, isGlob } from '../text/glob';

/** A matcher for a list of ids, names and globs; an empty list matches nothing. */
export function pipeMatcher(patterns: readonly string[]) {
  const exact = new Set(patterns.filter((p) => !isGlob(p)));
  const globs = patterns.filter(isGlob);
  return (pipe: { pipeId: string; pipeName: string }): boolean =>
    exact.has(pipe.pipeId) ||
    exact.has(pipe.pipeName) ||
    globs.some((glob) => globMatches(glob, pipe.pipeName));
}
