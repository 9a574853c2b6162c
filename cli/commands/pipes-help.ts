/**
 * `cloudops pipes` in the help registry (cli/help.ts): its subcommands and their flags, for
 * `--help`, suggestions and shell completion. pipes.ts and pipes-oncall.ts parse with the same
 * flags.
 */
import type { CommandHelp } from '../help';

/** Where `pipes check` keeps the watchdog's records, and `list` / `get` read them. */
export const DEFAULT_STATE_FILE = '.cloudops/pipes-state.json';

const READ_EXIT_CODES =
  'Exit codes: 0 ok; 1 a service could not be read; 64 usage or setup error; 130 interrupted.';

/** `list` and `get` take the same flags. */
const READ_OPTIONS = {
  service: { type: 'string' },
  json: { type: 'boolean' },
  'state-file': { type: 'string' },
} as const;

const STATE_FILE_HELP = `the watchdog state \`pipes check\` keeps (default ${DEFAULT_STATE_FILE}, when it exists)`;

/** start | stop | resync: what each does, and what is said instead of calling. */
function stateCommand(command: 'start' | 'stop' | 'resync', what: string) {
  return {
    usage: `cloudops pipes ${command} ID [--service ID] [--yes]`,
    summary:
      `${what}\n` +
      'ID is a pipe id, or a name only one pipe of the services has. Asks first on a terminal;\n' +
      'off a terminal it needs --yes.\n' +
      'Exit codes: 0 done, or nothing to do (already there); 1 failed or refused (said before\n' +
      'calling); 64 usage or setup error (no ID, no --yes off a terminal); 130 interrupted.',
    options: { service: { type: 'string' }, yes: { type: 'boolean' } },
    help: {
      service: 'the pipe is in this service (default: every service in CLOUDOPS_SERVICE_ID)',
      yes: 'do not ask (required off a terminal)',
    },
    positionals: 1,
  } as const;
}

export const pipesHelp = {
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
        'state-file': `where the last states are kept (default ${DEFAULT_STATE_FILE})`,
      },
    },
    list: {
      usage: 'cloudops pipes list [--service ID] [--json] [--state-file FILE]',
      summary:
        'Every pipe of the services: state, since when, last progress, rates, open conditions.\n' +
        'One metrics read per service (the pipes listing where the endpoint is not served); since\n' +
        'when, the rates and the conditions come from the watchdog state file `pipes check` keeps.\n' +
        READ_EXIT_CODES,
      options: READ_OPTIONS,
      help: {
        service: 'only this service (default: every service in CLOUDOPS_SERVICE_ID)',
        json: 'print one JSON object: { services: [{ serviceId, read, pipes }] }',
        'state-file': STATE_FILE_HELP,
      },
    },
    get: {
      usage: 'cloudops pipes get ID [--service ID] [--json] [--state-file FILE]',
      summary:
        'One pipe (by id, or a name only one pipe has): what `pipes list` shows, every metric read\n' +
        'and the readings the watchdog kept. One metrics read per service.\n' +
        READ_EXIT_CODES.replace(
          'a service could not be read',
          'no such pipe, or a service could not be read',
        ),
      options: READ_OPTIONS,
      help: {
        service: 'look in this service only (default: every service in CLOUDOPS_SERVICE_ID)',
        json: 'print one JSON object',
        'state-file': STATE_FILE_HELP,
      },
      positionals: 1,
    },
    start: stateCommand(
      'start',
      'Start a pipe. Only from Stopped or Failed; a Running pipe is "already running" (exit 0).',
    ),
    stop: stateCommand('stop', 'Stop a pipe. A Stopped pipe is "already stopped" (exit 0).'),
    resync: stateCommand(
      'resync',
      'Resync a postgres or mysql pipe from its source; refused for other pipes.',
    ),
  },
} satisfies CommandHelp;
