/**
 * `cloudops keys <subcommand>`: each subcommand's usage, summary and flags, for the help registry
 * (cli/help.ts: `--help`, suggestions, completion) and for the parsers in the keys-*.ts files.
 */
import type { CommandSpec } from '../args';
import type { CommandHelp } from '../help';

const string = { type: 'string' } as const;
const boolean = { type: 'boolean' } as const;

const SECRET_SETTINGS =
  'Our key secrets are found by their key tags (ListSecrets; AWS_ENDPOINT_URL_SECRETS_MANAGER,\n' +
  'AWS_REGION) plus CLOUDOPS_KEY_SECRET_ID; no key secret value is read.';

export const listSpec = {
  usage: 'cloudops keys list [--json]',
  summary:
    'Every key of the organization, riskiest first: name, suffix, roles, state, created, last used,\n' +
    'expires, IP access list size, and which secret of which deployment rotates it.\n' +
    SECRET_SETTINGS,
  options: { json: boolean },
  help: { json: 'print one JSON object: { at, keys, warnings }' },
  positionals: 1,
} satisfies CommandSpec<Record<string, { type: 'string' | 'boolean' }>>;

export const auditSpec = {
  usage:
    'cloudops keys audit [--json | --format text|markdown|json] [--fail-on low|medium|high]\n' +
    '       [--unused-days N] [--expiring-days N]',
  summary:
    'Audit every key: never expires, admin role, no IP access list, unused, expiring with no\n' +
    'rotation of ours, disabled but not deleted, made outside rotation (who, when, from where: the\n' +
    "organization's activities), one of ours whose rotation is overdue. Each finding has a severity\n" +
    'and what to do.\n' +
    SECRET_SETTINGS +
    '\n\nExit codes: 0 ok; 2 a finding at or above --fail-on; 1 failure; 64 usage or setup error.',
  options: {
    json: boolean,
    format: string,
    'fail-on': string,
    'unused-days': string,
    'expiring-days': string,
  },
  help: {
    json: 'same as --format json',
    format: 'text (default), markdown (a PR or issue comment), json',
    'fail-on': 'exit 2 when a finding is at or above this severity (low, medium, high)',
    'unused-days': 'a key idle this many days is unused (default 90)',
    'expiring-days':
      'a key no rotation of ours replaces is flagged this many days before it expires (default 14)',
  },
  positionals: 1,
} satisfies CommandSpec<Record<string, { type: 'string' | 'boolean' }>>;

export const adoptSpec = {
  usage:
    'cloudops keys adopt --key-id ID --secret-id SECRET [--key-secret-file FILE]\n' +
    '       [--rotation-function ARN] [--rotation-days N] [--json]',
  summary:
    'Bring an existing key (one made in the console, say) under rotation: checks that the service\n' +
    "accepts it and finds its record, then writes the secret in cloudops' shape (clearing a failed\n" +
    "rotation's AWSPENDING), tags it with the key and turns rotation on. The next rotation replaces\n" +
    'the key and cuts it to its grace. The key secret is read from --key-secret-file (default stdin),\n' +
    'never from a flag. Needs CLOUDOPS_API_URL and the organization (CLOUDOPS_ORGANIZATION_ID or\n' +
    'the configured key).',
  options: {
    'key-id': string,
    'secret-id': string,
    'key-secret-file': string,
    'rotation-function': string,
    'rotation-days': string,
    json: boolean,
  },
  help: {
    'key-id': 'the key ID (the user of its Basic credentials, as the console shows it)',
    'secret-id': 'the secret to hold it: an ARN, or a name (created when missing)',
    'key-secret-file': 'file holding the key secret (default - : stdin)',
    'rotation-function':
      'the rotate-key function ARN, when the secret has no rotation function yet',
    'rotation-days': 'rotation schedule for a secret that has none (default 30)',
    json: 'print the result as one JSON object',
  },
  positionals: 1,
} satisfies CommandSpec<Record<string, { type: 'string' | 'boolean' }>>;

export const revokeSpec = {
  usage: 'cloudops keys revoke RECORD_ID [--grace DURATION] [--force] [--json]',
  summary:
    'Disable a key now and cut its expiry to the grace (it can be re-enabled until then); delete it\n' +
    'once the grace is over: at once with --grace 0, else when revoke runs again after the grace.\n' +
    "Refuses a key another deployment's rotator made, and the current key of one of our secrets,\n" +
    'unless --force. RECORD_ID is the id `keys list --json` and `keys audit` show.',
  options: { grace: string, force: boolean, json: boolean },
  help: {
    grace: 'how long the disabled key may still be re-enabled (default 7d; 0 deletes it now)',
    force: "revoke a key another deployment rotates, or one of our secrets' current key",
    json: 'print the result as one JSON object',
  },
  positionals: 2,
} satisfies CommandSpec<Record<string, { type: 'string' | 'boolean' }>>;

export const rotateSpec = {
  usage:
    'cloudops keys rotate [--secret-id ID] [--via local|secrets-manager] [--wait DURATION] [--json]',
  summary:
    'Rotate the management API key held in a Secrets Manager secret.\n' +
    '--via local (default) runs the four rotation steps here, exactly as the rotation function does\n' +
    '(resuming an unfinished rotation with its token); --via secrets-manager calls RotateSecret and\n' +
    'follows the rotation the deployed function (or the sandbox) runs until the new version is\n' +
    'AWSCURRENT; a rotation that has not finished by --wait exits 1.\n' +
    'Env: CLOUDOPS_API_URL, CLOUDOPS_KEY_SECRET_ID, AWS_ENDPOINT_URL_SECRETS_MANAGER, AWS_REGION,\n' +
    'CLOUDOPS_KEY_LIFETIME, CLOUDOPS_KEY_GRACE_PERIOD, CLOUDOPS_KEY_NAME_PREFIX,\n' +
    'CLOUDOPS_ROTATION_ADMIN_SECRET_ID, CLOUDOPS_ROTATION_TEST_CALL.',
  options: {
    'secret-id': string,
    via: string,
    wait: string,
    json: boolean,
  },
  help: {
    'secret-id': 'secret holding the key (default CLOUDOPS_KEY_SECRET_ID)',
    via: 'local (default) or secrets-manager',
    wait: '--via secrets-manager: how long to follow the rotation (default 5m)',
    json: 'print the result as one JSON object',
  },
  positionals: 1,
} satisfies CommandSpec<Record<string, { type: 'string' | 'boolean' }>>;

export const keysHelp: CommandHelp = {
  subcommands: {
    list: listSpec,
    audit: auditSpec,
    adopt: adoptSpec,
    revoke: revokeSpec,
    rotate: rotateSpec,
  },
};
