import { writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { rateLimitSetting } from '../../lib/config';
import { isSandboxProfile, SANDBOX_PROFILES, startSandbox } from '../../sandbox';
import { formatHelp, intFlag, parseCommand, UsageError, type CommandSpec } from '../args';
import { sandboxEnv } from '../connect';
import type { Command } from '../io';

const spec = {
  usage:
    'cloudops sandbox [--profile current|spec] [--port N] [--state FILE] [--faults SPEC] [--write-env FILE]',
  summary:
    'Serve the local emulator of the management API, the observability API and Secrets Manager.\n' +
    'The first stdout line is one JSON object with the URLs, ids and credentials a client needs.',
  options: {
    profile: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    state: { type: 'string' },
    faults: { type: 'string' },
    'management-rate-limit': { type: 'string' },
    'observability-rate-limit': { type: 'string' },
    'write-env': { type: 'string' },
  },
  help: {
    profile:
      'current (default): the service as it answers today; spec: the spec snapshot. A --state file keeps its own',
    port: 'management API port; observability +1, Secrets Manager +2 (default 0: free ports)',
    host: 'address to listen on (default 127.0.0.1)',
    state: 'state file: loaded if present, written atomically after each change',
    faults: 'fault injection, e.g. seed=7,rate=0.2,kinds=429+500+html504+truncate+reset',
    'management-rate-limit': 'per-key limit, e.g. 10/10s (the real service)',
    'observability-rate-limit': 'per-token limit, e.g. 100/1m (the real service)',
    'write-env':
      'also write the connection settings as KEY=VALUE lines to FILE (mode 600), for `--env-file FILE`',
  },
} satisfies CommandSpec<Record<string, { type: 'string' | 'boolean' }>>;

function rateLimitFlag(name: string, value: string | undefined) {
  if (value === undefined) return undefined;
  const parsed = rateLimitSetting.safeParse(value);
  if (!parsed.success) throw new UsageError(`--${name} expects <count>/<window> such as 10/10s`);
  return parsed.data;
}

function profileFlag(value: string | undefined) {
  if (value === undefined || isSandboxProfile(value)) return value;
  throw new UsageError(`--profile expects ${SANDBOX_PROFILES.join(' or ')}, got "${value}"`);
}

export const sandboxCommand: Command = {
  name: 'sandbox',
  summary: 'serve the local emulator of both APIs and Secrets Manager',
  async run(argv, io, signal) {
    const { values } = parseCommand(spec, argv);
    if (values.help) {
      io.out(formatHelp(spec));
      return 0;
    }
    const sandbox = await startSandbox({
      profile: profileFlag(values.profile),
      host: values.host,
      port: intFlag('port', values.port, 0),
      stateFile: values.state,
      faults: values.faults,
      rateLimits: {
        management: rateLimitFlag('management-rate-limit', values['management-rate-limit']),
        observability: rateLimitFlag(
          'observability-rate-limit',
          values['observability-rate-limit'],
        ),
      },
    });
    io.out(JSON.stringify(sandbox.info));
    if (values['write-env']) {
      // Plus the seeded webhook, which the example dashboards in dashboards/ refer to.
      const env = { ...sandboxEnv(sandbox.info), CLOUDOPS_VAR_WEBHOOK_ID: sandbox.info.webhookId };
      const lines = Object.entries(env).map(([k, v]) => `${k}=${v}`);
      // The sandbox's own credentials: a local dev artefact, readable by this user only.
      writeFileSync(values['write-env'], `${lines.join('\n')}\n`, { mode: 0o600 });
    }
    if (!signal.aborted) await once(signal, 'abort');
    await sandbox.close();
    return 0;
  },
};
