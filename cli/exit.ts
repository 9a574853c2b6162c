/**
 * The CLI's exit codes, one meaning each (DESIGN.md): CI scripts read 2 as "changes pending", so
 * a mistake in how a command was called or set up is never 2.
 */
export const EXIT = {
  ok: 0,
  failure: 1,
  /** `plan --detailed-exitcode`: changes pending; `keys audit --fail-on`: findings at the level. */
  changes: 2,
  /** Usage and setup errors: an unknown flag, a missing settings file or setting (sysexits' EX_USAGE). */
  usage: 64,
  /** Interrupted (Ctrl-C), wherever it landed: a prompt, a request, a wait. */
  interrupted: 130,
} as const;
