/**
 * One cold Lambda container: a fresh `node` that imports a bundle on its first invocation and
 * answers invocations over IPC (rotation sends four). Times import and the first invocation
 * with the process's own clock; reports peak RSS (maxRSS) when told `done`.
 * Plain `node` runs it: bench/cold-start.ts compiles it to .mjs first (runnerFile()).
 */
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const bundle = process.argv[2];
let mod: { handler: (event: unknown, context: unknown) => Promise<unknown> } | undefined;
let invocations = 0;

const context = () => ({
  functionName: 'bench',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:bench',
  memoryLimitInMB: '1024',
  awsRequestId: randomUUID(),
  logGroupName: '/aws/lambda/bench',
  logStreamName: 'bench',
  callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => 60_000,
  done() {},
  fail() {},
  succeed() {},
});

const send = (message: Record<string, unknown>, done?: () => void) =>
  process.send!(message, undefined, undefined, done);

process.on('message', (message: { type: string; event?: unknown }) => {
  if (message.type === 'invoke') {
    void invoke(message.event);
  } else if (message.type === 'done') {
    const usage = process.resourceUsage();
    send({ type: 'stats', maxRssKiB: usage.maxRSS, invocations }, () => process.exit(0));
  }
});

async function invoke(event: unknown) {
  const t0 = performance.now();
  let importMs;
  if (!mod) {
    mod = (await import(pathToFileURL(bundle).href)) as NonNullable<typeof mod>;
    importMs = performance.now() - t0;
  }
  const t1 = performance.now();
  invocations += 1;
  try {
    const result = await mod.handler(event, context());
    send({ type: 'result', ok: true, importMs, invokeMs: performance.now() - t1, result });
  } catch (error) {
    send({
      type: 'result',
      ok: false,
      importMs,
      invokeMs: performance.now() - t1,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
  }
}

send({ type: 'ready' });
