import { readWatchdogSettings } from '../../lib/pipes/config';
import { runWatchdogFromSettings, watchdogClientSettings } from '../../lib/pipes/run';
import type { WatchdogResult } from '../../lib/pipes/watchdog';
import { redactText } from '../../lib/redact';
import { forTerminal } from '../../lib/text/terminal';
import { describeChange } from '../../lib/watch/notice';
import { createNotifiers } from '../../lib/watch/notifiers/set';
import { LocalWatchStore } from '../../lib/watch/local-store';
import { formatHelp, parseCommand, UsageError } from '../args';
import { cliLogger, connectFromEnv, secretsManagerClientFromEnv } from '../connect';
import { refusedCredentialHint } from '../failure';
import type { CliIO, Command } from '../io';
import { DEFAULT_STATE_FILE, pipesHelp } from './pipes-help';
import { terminalAsk, type Ask } from '../ask';
import { runPipesCommand, runPipesGet, runPipesList } from './pipes-oncall';

/** `pipes check`: its flags and help live in the help registry, once. */
const spec = pipesHelp.subcommands.check;

/** For people: every value from the service is made safe for a terminal (`t`), one per line. */
function render(result: WatchdogResult, env: CliIO['env']): string {
  const t = forTerminal;
  const lines = result.notifications.map((n) => {
    const change = t(describeChange(n));
    const pipe =
      n.subject === 'pipe' ? `${t(n.pipeName)} (${t(n.pipeId)})` : `service ${t(n.serviceId)}`;
    return `[${n.severity.toUpperCase()}] ${n.kind} ${pipe}${change ? `: ${change}` : ''} — ${t(n.message)}`;
  });
  for (const e of result.errors) {
    lines.push(
      `error (${e.stage}) service ${t(e.serviceId)}${e.pipeId ? ` pipe ${t(e.pipeId)}` : ''}${e.notifier ? ` via ${e.notifier}` : ''}: ${t(e.message)}`,
    );
  }
  // A refused key fails every listing alike: one hint, after them.
  if (result.errors.some((e) => e.stage === 'list' && e.status === 401))
    lines.push(refusedCredentialHint('management', env));
  for (const id of result.idle) lines.push(`service ${t(id)} is idle: its pipes were not checked`);
  lines.push(
    `checked ${result.checked} pipes: ${result.notifications.length} notifications, ${result.errors.length} errors`,
  );
  return lines.join('\n');
}

export async function runPipesCheck(
  argv: string[],
  io: CliIO,
  signal: AbortSignal,
): Promise<number> {
  const { values } = parseCommand(spec, argv);
  if (values.help) {
    io.out(formatHelp(spec));
    return 0;
  }
  const settings = readWatchdogSettings(io.env);
  const logger = cliLogger(io.env, { command: 'pipes check' });
  const connection = connectFromEnv(io.env, watchdogClientSettings(settings));
  // Reads the Slack / webhook secrets when they are given by id.
  const secretsManager = secretsManagerClientFromEnv(io.env);
  let result: WatchdogResult;
  try {
    result = await runWatchdogFromSettings(settings, {
      api: connection.clients.requireManagement(),
      store: new LocalWatchStore(values['state-file'] ?? DEFAULT_STATE_FILE),
      notifiers: createNotifiers(settings.notifiers, { secretsManager }),
      logger,
      signal,
    });
  } finally {
    connection.close();
    secretsManager.destroy();
  }
  // Receivers' error texts can echo a destination URL: nothing printed keeps a token.
  io.out(
    redactText(
      values.json
        ? JSON.stringify(
            {
              checked: result.checked,
              notifications: result.notifications,
              errors: result.errors,
              idle: result.idle,
            },
            null,
            2,
          )
        : render(result, io.env),
    ),
  );
  return result.errors.length > 0 ? 1 : 0;
}

export const pipesCommand: Command & {
  runWith(argv: string[], io: CliIO, signal: AbortSignal, ask: Ask): Promise<number>;
} = {
  name: 'pipes',
  summary: 'pipe watchdog and on-call: check | list | get | start | stop | resync',
  run(argv, io, signal) {
    return this.runWith(argv, io, signal, terminalAsk);
  },
  async runWith(argv, io, signal, ask) {
    const [sub, ...rest] = argv;
    switch (sub) {
      case 'check':
        return runPipesCheck(rest, io, signal);
      case 'list':
        return runPipesList(rest, io, signal);
      case 'get':
        return runPipesGet(rest, io, signal);
      case 'start':
      case 'stop':
      case 'resync':
        return runPipesCommand(sub, rest, io, signal, ask);
    }
    if (sub === undefined || sub === '--help' || sub === '-h') {
      io.out(formatHelp(spec));
      return sub === undefined ? 2 : 0;
    }
    throw new UsageError(
      `unknown subcommand "${sub}" (expected: ${Object.keys(pipesHelp.subcommands).join(', ')})`,
    );
  },
};
