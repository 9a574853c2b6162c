import { once } from 'node:events';
import { writeFileAtomic } from '../../lib/atomic-write';
import { rateLimitSetting } from '../../lib/config';
import { readRotationConfig } from '../../lib/keys';
import {
  isSandboxProfile,
  parseFaultSpec,
  SANDBOX_PROFILES,
  startSandbox,
  type FaultSpec,
  type Sandbox,
} from '../../sandbox';
import { formatHelp, intFlag, parseCommand, UsageError, type CommandSpec } from '../args';
import { sandboxEnvFile } from '../connect';
import type { CommandHelp } from '../help';
import type { CliIO, Command } from '../io';
import { assertWritable } from '../output';
import { sandboxRotationInvoker } from '../sandbox-rotation';

const spec = {
  usage:
    'cloudops sandbox [--profile current|spec] [--port N] [--state-file FILE] [--faults SPEC] [--write-env FILE]',
  summary:
    'Serve the local emulator of the management API, the observability API and Secrets Manager.\n' +
    'The first stdout line is one JSON object with the URLs, ids and credentials a client needs.',
  options: {
    profile: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    'state-file': { type: 'string' },
    faults: { type: 'string' },
    'management-rate-limit': { type: 'string' },
    'observability-rate-limit': { type: 'string' },
    'write-env': { type: 'string' },
  },
  help: {
    profile:
      'current (default): the service as it answers today; spec: the spec snapshot. A --state-file keeps its own',
    port: 'management API port; observability +1, Secrets Manager +2 (default 0: free ports)',
    host: 'address to listen on (default 127.0.0.1)',
    'state-file': 'keep the state in FILE: loaded if present, written atomically after each change',
    faults: 'fault injection, e.g. seed=7,rate=0.2,kinds=429+500+html504+truncate+reset',
    'management-rate-limit': 'per-key limit, e.g. 10/10s (the real service)',
    'observability-rate-limit': 'per-token limit, e.g. 100/1m (the real service)',
    'write-env':
      'also write the connection settings as KEY=VALUE lines to FILE (mode 600), for `--settings FILE`',
  },
  // One name per meaning: every command keeps its state in `--state-file`.
  aliases: { state: 'state-file' },
} satisfies CommandSpec<Record<string, { type: 'string' | 'boolean' }>>;

function rateLimitFlag(name: string, value: string | undefined) {
  if (value === undefined) return undefined;
  const parsed = rateLimitSetting.safeParse(value);
  if (!parsed.success) throw new UsageError(`--${name} expects <count>/<window> such as 10/10s`);
  return parsed.data;
}

function faultsFlag(value: string | undefined): FaultSpec | undefined {
  if (value === undefined) return undefined;
  try {
    return parseFaultSpec(value);
  } catch (error) {
    throw new UsageError(`--faults "${value}": ${(error as Error).message}`);
  }
}

/**
 * Aborts when the process that started us goes away while npm stands between it and us
 * (`npx cloudops sandbox &`, `npm run sandbox`): a signal to npm's PID does not always reach
 * this process, and a sandbox left serving would hold its ports.
 */
function whenLauncherExits(env: CliIO['env']): AbortSignal | undefined {
  if (!env.npm_command && !env.npm_lifecycle_event) return undefined;
  const parent = process.ppid;
  const controller = new AbortController();
  const timer = setInterval(() => {
    if (process.ppid !== parent)
      controller.abort(new Error('the npm process that started the sandbox exited'));
  }, 500);
  timer.unref();
  controller.signal.addEventListener('abort', () => clearInterval(timer));
  return controller.signal;
}

/** The env file, written whole or not at all (a reader never sees half of it). */
function writeEnvFile(file: string, sandbox: Sandbox): Promise<void> {
  const lines = Object.entries(sandboxEnvFile(sandbox.info)).map(([k, v]) => `${k}=${v}`);
  // Endpoints and secret ids of a local sandbox: readable by this user only all the same.
  return writeFileAtomic(
    file,
    `# cloudops sandbox (pid ${process.pid}); use with --settings ${file}\n${lines.join('\n')}\n`,
  );
}

function profileFlag(value: string | undefined) {
  if (value === undefined || isSandboxProfile(value)) return value;
  throw new UsageError(`--profile expects ${SANDBOX_PROFILES.join(' or ')}, got "${value}"`);
}

export const sandboxHelp: CommandHelp = { spec };

export const sandboxCommand: Command = {
  name: 'sandbox',
  summary: 'serve the local emulator of both APIs and Secrets Manager',
  async run(argv, io, signal) {
    const { values } = parseCommand(spec, argv);
    if (values.help) {
      io.out(formatHelp(spec));
      return 0;
    }
    // Every flag is checked before a port is opened or a file written.
    const profile = profileFlag(values.profile);
    const port = intFlag('port', values.port, 0);
    const faults = faultsFlag(values.faults);
    const rateLimits = {
      management: rateLimitFlag('management-rate-limit', values['management-rate-limit']),
      observability: rateLimitFlag('observability-rate-limit', values['observability-rate-limit']),
    };
    const envFile = values['write-env'];
    if (envFile) assertWritable('--write-env', envFile);
    const stateFile = values['state-file'];
    if (stateFile) assertWritable('--state-file', stateFile);
    // RotateSecret runs the real rotation function, with the CLOUDOPS_KEY_* settings of this env.
    const rotationConfig = readRotationConfig(io.env);
    const rotation: { invoke?: ReturnType<typeof sandboxRotationInvoker> } = {};
    const sandbox = await startSandbox({
      profile,
      host: values.host,
      port,
      stateFile,
      faults,
      rateLimits,
      invokeRotation: (arn, event) => rotation.invoke!(arn, event),
      // As AWS: RotateSecret answers first; `keys rotate --via secrets-manager` follows it.
      rotationTiming: 'async',
    });
    rotation.invoke = sandboxRotationInvoker(sandbox, rotationConfig);
    const stop = AbortSignal.any([signal, whenLauncherExits(io.env) ?? signal]);
    try {
      // The settings file is there before the first stdout line, which says "ready".
      if (envFile) await writeEnvFile(envFile, sandbox);
      io.out(JSON.stringify(sandbox.info));
      if (envFile)
        io.err(`settings written to ${envFile}: give other commands --settings ${envFile}`);
      if (!stop.aborted) await once(stop, 'abort');
    } finally {
      await sandbox.close();
    }
    return 0;
  },
};
