import type { CommandEntry } from './help';
import type { CliIO } from './io';
import type { ServiceUrlSetting } from './reach';

export type { CommandEntry } from './help';

type Env = CliIO['env'];
const secretsIfUsed = (env: Env): ServiceUrlSetting[] =>
  env.CLOUDOPS_KEY_SECRET_ID || env.CLOUDOPS_OBSERVABILITY_TOKEN_SECRET_ID
    ? ['AWS_ENDPOINT_URL_SECRETS_MANAGER']
    : [];
/** Dashboards and alerts: `/api/v2` in open-source mode; in managed mode (the default) only the management API. */
const observabilityUrls = (env: Env): ServiceUrlSetting[] => [
  env.CLOUDOPS_OBSERVABILITY_MODE === 'open-source'
    ? 'CLOUDOPS_OBSERVABILITY_URL'
    : 'CLOUDOPS_API_URL',
  ...secretsIfUsed(env),
];

/**
 * Every top-level command but the demo and completion; capabilities add theirs here. cli.ts puts
 * the demo in front and completion behind, and the demo runs these same entries (so it never
 * imports the list that holds it).
 */
export const SERVICE_COMMANDS: readonly CommandEntry[] = [
  {
    name: 'sandbox',
    summary: 'serve the local emulator of both APIs and Secrets Manager',
    load: async () => (await import('./commands/sandbox')).sandboxCommand,
    help: async () => (await import('./commands/sandbox')).sandboxHelp,
  },
  {
    name: 'dashboards',
    summary: 'dashboards as code: validate | plan | apply | pull | schema',
    load: async () => (await import('./commands/dashboards')).dashboardsCommand,
    help: async () => (await import('./commands/dashboards-help')).dashboardsHelp,
    reaches: (sub, env) =>
      sub === 'plan' || sub === 'apply' || sub === 'pull' ? observabilityUrls(env) : [],
  },
  {
    name: 'alerts',
    summary: 'alerts from events: provision',
    load: async () => (await import('./commands/alerts')).alertsCommand,
    help: async () => (await import('./commands/alerts')).alertsHelp,
    reaches: (sub, env) => (sub === 'provision' ? observabilityUrls(env) : []),
  },
  {
    name: 'pipes',
    summary: 'pipe watchdog and on-call: check | list | get | start | stop | resync',
    load: async () => (await import('./commands/pipes')).pipesCommand,
    help: async () => (await import('./commands/pipes-help')).pipesHelp,
    // Every subcommand (preflight has refused unknown ones) calls the management API.
    reaches: (sub, env) => (sub ? ['CLOUDOPS_API_URL', ...secretsIfUsed(env)] : []),
  },
  {
    name: 'keys',
    summary: 'every key of the organization: list | audit | adopt | revoke | rotate',
    load: async () => (await import('./commands/keys')).keysCommand,
    help: async () => (await import('./commands/keys-help')).keysHelp,
    // Every subcommand reads the key list and our key secrets' tags (or rotates through them).
    reaches: (sub) => (sub ? ['AWS_ENDPOINT_URL_SECRETS_MANAGER', 'CLOUDOPS_API_URL'] : []),
  },
  {
    name: 'doctor',
    summary:
      'check the settings, both APIs, the key and its expiry, the secrets and their rotation',
    load: async () => (await import('./commands/doctor')).doctorCommand,
    help: async () => (await import('./commands/doctor')).doctorHelp,
  },
];
