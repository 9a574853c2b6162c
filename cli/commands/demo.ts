import { startSandbox } from '../../sandbox';
import type { RotationInvoker } from '../../sandbox/secrets-manager';
import { formatHelp, parseCommand, type CommandSpec } from '../args';
import { connectFromEnv, sandboxEnv } from '../connect';
import { say, type DemoContext, type DemoStep } from '../demo/context';
import { dashboardSteps } from '../demo/dashboards';
import { foundationSteps } from '../demo/foundation';
import { demoRotationInvoker, rotationSteps } from '../demo/rotation';
import { watchdogSteps } from '../demo/watchdog';
import type { Command } from '../io';

const spec = {
  usage: 'cloudops demo [--state FILE]',
  summary:
    'A guided tour of cloudops against an in-process sandbox (no cloud account needed).\n' +
    'Every step makes real HTTP calls and checks what it shows; any failed check exits 1.',
  options: { state: { type: 'string' } },
  help: { state: 'keep the sandbox state in FILE (default: in memory)' },
} satisfies CommandSpec<Record<string, { type: 'string' | 'boolean' }>>;

/** The tour, in order; each capability adds its steps here. */
// Rotation moves the sandbox clock past the grace period, so it comes last.
const DEMO_STEPS: DemoStep[] = [
  ...foundationSteps,
  ...dashboardSteps,
  ...watchdogSteps,
  ...rotationSteps,
];

// Generous limits keep the tour quick; the client paces itself to the same numbers.
const DEMO_RATE_LIMITS = {
  management: { limit: 100, windowMs: 10_000 },
  observability: { limit: 600, windowMs: 60_000 },
};

export const demoCommand: Command = {
  name: 'demo',
  summary: 'a guided tour against an in-process sandbox',
  async run(argv, io, signal) {
    const { values } = parseCommand(spec, argv);
    if (values.help) {
      io.out(formatHelp(spec));
      return 0;
    }
    // The rotation function needs the sandbox's URLs, so it is wired once the sandbox is up.
    const rotation: { invoke?: RotationInvoker } = {};
    const sandbox = await startSandbox({
      profile: 'current',
      port: 0,
      stateFile: values.state,
      rateLimits: DEMO_RATE_LIMITS,
      invokeRotation: (arn, event) => rotation.invoke!(arn, event),
    });
    rotation.invoke = demoRotationInvoker(sandbox);
    const { info } = sandbox;
    // The same env a user would export after `cloudops sandbox`, with the demo's limits.
    const limit = (l: { limit: number; windowMs: number }) => `${l.limit}/${l.windowMs}ms`;
    const env = {
      ...sandboxEnv(info),
      CLOUDOPS_MANAGEMENT_RATE_LIMIT: limit(DEMO_RATE_LIMITS.management),
      CLOUDOPS_OBSERVABILITY_RATE_LIMIT: limit(DEMO_RATE_LIMITS.observability),
    };
    const connection = connectFromEnv(env);
    const ctx: DemoContext = { sandbox, clients: connection.clients, env, io, signal };
    try {
      io.out('cloudops demo: every step below runs over real HTTP against a local sandbox');
      say.line(io, `management API     ${info.apiUrl}`);
      say.line(io, `observability API  ${info.observabilityUrl}`);
      say.line(io, `Secrets Manager    ${info.secretsManagerUrl}`);
      for (const [index, step] of DEMO_STEPS.entries()) {
        if (signal.aborted) return 1;
        say.section(io, `${index + 1}. ${step.title}`);
        await step.run(ctx);
      }
      const entries = sandbox.requestLog.entries();
      const byStatus = new Map<number, number>();
      for (const entry of entries)
        byStatus.set(entry.status, (byStatus.get(entry.status) ?? 0) + 1);
      const summary = [...byStatus].map(([status, count]) => `${count}× ${status}`).join(', ');
      io.out(
        `\nDone: ${entries.length} requests to the sandbox (${summary}). No secret was printed.`,
      );
      return 0;
    } finally {
      connection.close();
      await sandbox.close();
    }
  },
};
