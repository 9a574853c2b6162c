/** Pipes named in a setting: by id, by name, or by a name glob (`*` any run of characters, `?` one). */

const GLOB_CHARS = /[*?]/;

function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`, 's');
}

/** A matcher for a list of ids, names and globs; an empty list matches nothing. */
export function pipeMatcher(patterns: readonly string[]) {
  const exact = new Set(patterns.filter((p) => !GLOB_CHARS.test(p)));
  const globs = patterns.filter((p) => GLOB_CHARS.test(p)).map(globToRegExp);
  return (pipe: { pipeId: string; pipeName: string }): boolean =>
    exact.has(pipe.pipeId) || exact.has(pipe.pipeName) || globs.some((g) => g.test(pipe.pipeName));
}
