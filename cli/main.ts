import { processIO } from './io';
import { wantsDebug } from './debug';

// The SDK warns on every run that future versions need Node 22; the CLI supports Node 20.19+.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// Source maps are read only for modules loaded after this, so the rest is imported below; without
// --debug no map is parsed and a normal start costs nothing more.
if (wantsDebug(process.argv.slice(2), processIO.env)) process.setSourceMapsEnabled(true);

// Ctrl-C / SIGTERM abort the running command, which then closes what it opened and exits 130; a
// second Ctrl-C does not wait for that.
const controller = new AbortController();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (controller.signal.aborted) process.exit(130);
    controller.abort(new Error(`received ${signal}`));
  });
}

const { runCli } = await import('./cli');
process.exitCode = await runCli(process.argv.slice(2), processIO, controller.signal);
