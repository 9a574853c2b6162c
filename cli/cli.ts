import type { CliIO } from './io';
import { dispatch } from './dispatch';
import { SERVICE_COMMANDS, type CommandEntry } from './registry';

/** Every top-level command: the demo, then the commands it tours (registry.ts). */
const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'demo',
    summary: 'a guided tour against an in-process sandbox',
    load: async () => (await import('./commands/demo')).demoCommand,
  },
  ...SERVICE_COMMANDS,
];

/** Runs one CLI invocation and returns its exit code (0 ok, 1 failure, 2 usage). */
export function runCli(
  argv: string[],
  io: CliIO,
  signal: AbortSignal = new AbortController().signal,
): Promise<number> {
  return dispatch(COMMANDS, argv, io, signal);
}
