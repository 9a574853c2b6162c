import { runCli } from './cli';
import { processIO } from './io';

// The SDK warns on every run that future versions need Node 22; the CLI supports Node 20.19+.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// Ctrl-C / SIGTERM abort the running command, which then closes what it opened.
const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => controller.abort(new Error(`received ${signal}`)));
}

process.exitCode = await runCli(process.argv.slice(2), processIO, controller.signal);
