import { dispatch } from './dispatch';
import type { CommandEntry } from './help';
import type { CliIO } from './io';
import { SERVICE_COMMANDS } from './registry';

export type { CommandEntry } from './help';
export { EXIT } from './exit';

/** Every top-level command: the demo, the commands it tours (registry.ts), and completion. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'demo',
    summary: 'a guided tour against an in-process sandbox',
    load: async () => (await import('./commands/demo')).demoCommand,
  },
  ...SERVICE_COMMANDS,
  {
    name: 'completion',
    summary: 'print a shell completion script: completion bash | completion zsh',
    // The script lists every command's flags: it reads the registry it is part of.
    load: async () => (await import('./commands/completion')).completionCommand(COMMANDS),
    help: async () => (await import('./commands/completion')).completionHelp,
  },
];

/** Runs one CLI invocation and returns its exit code (see EXIT). */
export function runCli(
  argv: string[],
  io: CliIO,
  signal: AbortSignal = new AbortController().signal,
): Promise<number> {
  return dispatch(COMMANDS, argv, io, signal);
}
