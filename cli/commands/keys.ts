/**
 * `cloudops keys`: list | audit | adopt | revoke | rotate. Each subcommand lives in its own file;
 * their flags are in keys-help.ts (the help registry reads `keysHelp`).
 */
import { subcommandOf } from '../help';
import type { Command } from '../io';
import { runKeysAdopt, runKeysRevoke } from './keys-adopt';
import { runKeysAudit, runKeysList } from './keys-audit';
import { runKeysRotate } from './keys-rotate';
import { UsageError } from '../args';

import { keysHelp } from './keys-help';

export { keysHelp };

export const keysCommand: Command = {
  name: 'keys',
  summary: 'every key of the organization: list | audit | adopt | revoke | rotate',
  run(argv, io, signal) {
    const sub = subcommandOf(argv, keysHelp);
    switch (sub) {
      case 'list':
        return runKeysList(argv, io);
      case 'audit':
        return runKeysAudit(argv, io);
      case 'adopt':
        return runKeysAdopt(argv, io);
      case 'revoke':
        return runKeysRevoke(argv, io);
      case 'rotate':
        return runKeysRotate(argv, io, signal);
      default:
        // The help registry answers unknown subcommands before a command loads; this is a guard.
        return Promise.reject(
          new UsageError(`expected list, audit, adopt, revoke or rotate, got "${sub ?? ''}"`),
        );
    }
  },
};
