import type { CliIO, Command } from './io';
import type { ServiceUrlSetting } from './reach';

/**
 * A top-level command as the registry knows it: name and summary for `--help`, and the module
 * loaded only when the command runs (the built bin splits each into its own chunk, so
 * `cloudops --help` loads none of them).
 */
export interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<Command>;
  /** The services a run with these arguments talks to: checked reachable before it starts. */
  reaches?(argv: string[], env: CliIO['env']): ServiceUrlSetting[];
}

type Env = CliIO['env'];
const secretsIfUsed = (env: Env): ServiceUrlSetting[] =>
  env.CLOUDOPS_KEY_SECRET_ID || env.CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID
    ? ['AWS_ENDPOINT_URL_SECRETS_MANAGER']
    : [];
/** Dashboards and alerts: the observability API, and in managed mode (the default) the management API. */
const observabilityUrls = (env: Env): ServiceUrlSetting[] => [
  'CLOUDOPS_OBSERVABILITY_URL',
  ...(env.CLOUDOPS_OBSERVABILITY_MODE === 'open-source' ? [] : ['CLOUDOPS_API_URL' as const]),
  ...secretsIfUsed(env),
];

/**
 * Every top-level command but the demo; capabilities add theirs here. cli.ts puts the demo in
 * front, and the demo runs these same entries (so it never imports the list that holds it).
 */
export const SERVICE_COMMANDS: readonly CommandEntry[] = [
  {
    name: 'sandbox',
    summary: 'serve the local emulator of both APIs and Secrets Manager',
    load: async () => (await import('./commands/sandbox')).sandboxCommand,
  },
  {
    name: 'dashboards',
    summary: 'dashboards as code: plan | apply | pull | schema',
    load: async () => (await import('./commands/dashboards')).dashboardsCommand,
    reaches: (argv, env) =>
      ['plan', 'apply', 'pull'].includes(argv[0]) ? observabilityUrls(env) : [],
  },
  {
    name: 'alerts',
    summary: 'alerts from events: provision',
    load: async () => (await import('./commands/alerts')).alertsCommand,
    reaches: (argv, env) => (argv[0] === 'provision' ? observabilityUrls(env) : []),
  },
  {
    name: 'pipes',
    summary: 'pipe watchdog: `pipes check` runs one pass',
    load: async () => (await import('./commands/pipes')).pipesCommand,
    reaches: (argv, env) =>
      argv[0] === 'check' ? ['CLOUDOPS_API_URL', ...secretsIfUsed(env)] : [],
  },
  {
    name: 'keys',
    summary: 'rotate the management API key in Secrets Manager',
    load: async () => (await import('./commands/keys')).keysCommand,
    reaches: (argv) =>
      argv[0] === 'rotate' ? ['AWS_ENDPOINT_URL_SECRETS_MANAGER', 'CLOUDOPS_API_URL'] : [],
  },
];
