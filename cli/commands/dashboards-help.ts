/**
 * `cloudops dashboards <subcommand> --help`: each subcommand's usage, summary and flags (only its
 * own), for the help registry (cli/help.ts), which also feeds suggestions and shell completion.
 */
import type { CommandHelp } from '../help';

/** Flag texts shared by the subcommands' help and the argument parser's. */
export const DASHBOARDS_FLAG_HELP = {
  dir: 'directory of dashboard files (.yaml, .yml, .json), searched recursively',
  var: 'value for a ${NAME} placeholder (repeatable; also the env var CLOUDOPS_VAR_NAME)',
  owner:
    'whose dashboards these are (env CLOUDOPS_DASHBOARDS_OWNER; default "default"): only those are touched',
  target: 'only the dashboard with this key (repeatable)',
  service:
    'only this configured service (CLOUDOPS_SERVICE_ID lists them): files without `services:` go ' +
    'to it (default: the first), files listing other services are skipped',
  prune: "delete this owner's dashboards, webhooks and saved searches that no file declares",
  adopt: 'take over a hand-made dashboard with the same name instead of creating a new one',
  json: 'same as --format json',
  format: 'text (default; colour on a terminal unless NO_COLOR), markdown (a PR comment), json',
} as const;
const flag = DASHBOARDS_FLAG_HELP;

export const REMOTE_VALIDATE_HELP =
  "skip the service's dry-run validate of the dashboards the plan writes (offline use)";

export const ALLOW_DELETE_ALL_HELP =
  'with --prune: allow deleting every owned object when the files declare none';

const string = { type: 'string' } as const;
const strings = { type: 'string', multiple: true } as const;
const boolean = { type: 'boolean' } as const;

/** The flags plan and apply share: what to plan, for whom, where. */
const planOptions = {
  dir: string,
  owner: string,
  target: strings,
  service: string,
  var: strings,
  prune: boolean,
  adopt: boolean,
  json: boolean,
  format: string,
  'no-remote-validate': boolean,
  'allow-delete-all': boolean,
};
const planHelp = {
  dir: flag.dir,
  owner: flag.owner,
  target: flag.target,
  service: flag.service,
  var: flag.var,
  prune: flag.prune,
  adopt: flag.adopt,
  json: flag.json,
  format: flag.format,
  'no-remote-validate': REMOTE_VALIDATE_HELP,
  'allow-delete-all': ALLOW_DELETE_ALL_HELP,
};

const EXIT_CODES =
  'Exit codes: 0 ok; 1 invalid files, a failed dashboard or alert, a key owned by another owner,\n' +
  'a stale plan file; 64 usage or setup error; 130 interrupted (Ctrl-C).';

export const dashboardsHelp: CommandHelp = {
  subcommands: {
    validate: {
      usage: 'cloudops dashboards validate --dir DIR [--json] [--var NAME=VALUE]...',
      summary:
        'Check dashboard files offline: syntax, limits, the file schema, the grid, each tile kind,\n' +
        'alert thresholds, ${NAME} variables and the form of `{ secret }` references. Needs no\n' +
        'settings or network; `source:` / `webhook:` names and secrets are read by plan and apply.\n' +
        'Exit codes: 0 valid; 1 invalid files; 64 usage error.',
      options: { dir: string, json: boolean, var: strings },
      help: {
        dir: flag.dir,
        json: 'print { ok, dashboards, tiles, alerts, errors }',
        var: flag.var,
      },
    },
    plan: {
      usage:
        'cloudops dashboards plan --dir DIR [--out FILE] [--format text|markdown|json] [--detailed-exitcode]\n' +
        '                         [--owner ID] [--service ID] [--target KEY]... [--prune] [--adopt] [--var NAME=VALUE]...',
      summary:
        'Show what apply would change: validates every file (before any request), reads the service,\n' +
        'has it dry-run validate every dashboard the plan would write (errors as file:line field) and\n' +
        'prints per dashboard what changes, old -> new, tile alerts included.\n' +
        `${EXIT_CODES}\n` +
        'With --detailed-exitcode: 2 when changes are pending (dashboards or alerts), for CI checks.',
      options: { ...planOptions, out: string, 'detailed-exitcode': boolean },
      help: {
        ...planHelp,
        out: 'also save the plan to FILE, for `cloudops dashboards apply FILE`',
        'detailed-exitcode': 'exit 2 when changes are pending, alerts included',
      },
    },
    apply: {
      usage:
        'cloudops dashboards apply --dir DIR [--auto-approve] [--events FILE] [--owner ID] [--service ID]\n' +
        '                          [--target KEY]... [--prune] [--adopt] [--var NAME=VALUE]... [--json]\n' +
        '       cloudops dashboards apply PLANFILE [--service ID] [--events FILE] [--var NAME=VALUE]... [--json]',
      summary:
        'Write the changes: from --dir (one fresh read, then only the writes), or a plan saved with\n' +
        '`plan --out` (applied exactly; refused with nothing written if anything it touches changed\n' +
        'since, or a webhook value it writes: the file keeps variables and secret ids, read again).\n' +
        'On a terminal apply --dir shows the plan and asks; off a terminal it needs --auto-approve.\n' +
        EXIT_CODES,
      options: { ...planOptions, 'auto-approve': boolean, events: string },
      help: {
        ...planHelp,
        'auto-approve': 'do not ask (required off a terminal, unless applying a plan file)',
        events: 'also write the `Dashboard Synced` events (what the function sends) to FILE',
      },
      positionals: 1,
    },
    pull: {
      usage:
        'cloudops dashboards pull --dir DIR [--target KEY]... [--name NAME]... [--owner ID] [--service ID] [--force] [--json]',
      summary:
        "Write a file per dashboard the service has (this owner's, or those named) into DIR.",
      options: {
        dir: string,
        target: strings,
        name: strings,
        owner: string,
        service: string,
        force: boolean,
        json: boolean,
      },
      help: {
        dir: 'the folder to write the files into',
        force: 'overwrite files that exist (else pull refuses, writing nothing)',
        json: 'print { service, dir, files: [{ file, key, name, alerts: [{ id, name, tile, state }] }] }',
        target: 'only the dashboard with this key (repeatable)',
        name: 'only dashboards with this name (repeatable)',
        owner: flag.owner,
        service: 'the configured service to pull from (default: the first of CLOUDOPS_SERVICE_ID)',
      },
      aliases: { key: 'target' },
    },
    schema: {
      usage: 'cloudops dashboards schema',
      summary: 'Print the JSON Schema of a dashboard file, for editors (dashboards/.schema.json).',
      options: {},
      help: {},
    },
  },
};
