/**
 * Name globs as the settings write them (pipe names in the watchdog's lists and the notice
 * routes): `*` any run of characters, `?` one, everything else literal. Each pattern is compiled
 * once: matchers run per pipe and per notice, with the same few patterns every time.
 */
const compiled = new Map<string, RegExp>();

/** True when the text is a glob rather than an exact id or name. */
export function isGlob(text: string): boolean {
  return /[*?]/.test(text);
}

/** Whether the whole of `name` matches `glob`. */
export function globMatches(glob: string, name: string): boolean {
  let pattern = compiled.get(glob);
  if (!pattern) {
    const body = glob
      .split(/([*?])/)
      .map((part) =>
        part === '*' ? '.*' : part === '?' ? '.' : part.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
      )
      .join('');
    pattern = new RegExp(`^${body}$`, 's');
    compiled.set(glob, pattern);
  }
  return pattern.test(name);
}
