import { runCli } from './cli';
import { processIO } from './io';

// Ctrl-C / SIGTERM abort the running command, which then closes what it opened.
const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => controller.abort(new Error(`received ${signal}`)));
}

process.exitCode = await runCli(process.argv.slice(2), processIO, controller.signal);
