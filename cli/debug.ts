/** `--debug` (or CLOUDOPS_DEBUG=1): a failure also prints its stack trace, mapped to the sources. */

const DEBUG_FLAG = '--debug';

/** Arguments before `--` (after it, everything belongs to the command). */
const ownArgs = (argv: readonly string[]) => {
  const end = argv.indexOf('--');
  return end < 0 ? argv : argv.slice(0, end);
};

export function wantsDebug(argv: readonly string[], env: Record<string, string | undefined>) {
  return ownArgs(argv).includes(DEBUG_FLAG) || ['1', 'true'].includes(env.CLOUDOPS_DEBUG ?? '');
}

/** Takes `--debug` out of argv (before `--`). */
export function withDebug(
  argv: string[],
  env: Record<string, string | undefined>,
): { argv: string[]; debug: boolean } {
  const head = ownArgs(argv);
  const rest = head.filter((a) => a !== DEBUG_FLAG);
  return { argv: [...rest, ...argv.slice(head.length)], debug: wantsDebug(argv, env) };
}
