/**
 * `cloudops pipes` in the help registry (cli/help.ts): its subcommands and their flags, for
 * `--help`, suggestions and shell completion. pipes.ts parses with the same flags.
 */
import type { CommandHelp } from '../help';

export const pipesHelp: CommandHelp = {
  subcommands: {
    check: {
      usage: 'cloudops pipes check [--json] [--state-file FILE]',
      summary:
        'One pipe-watchdog pass over the services in CLOUDOPS_SERVICE_ID: compare each pipe with the\n' +
        'state file, print what changed and send it to the notifiers configured in CLOUDOPS_WATCHDOG_*\n' +
        '(README.md, "Pipe watchdog settings"). Exit code 1 when a service could not be checked or a\n' +
        'notification could not be delivered; 64 usage or setup error.',
      options: { json: { type: 'boolean' }, 'state-file': { type: 'string' } },
      help: {
        json: 'print one JSON object: { checked, notifications, errors }',
        'state-file': 'where the last states are kept (default .cloudops/pipes-state.json)',
      },
    },
  },
};
