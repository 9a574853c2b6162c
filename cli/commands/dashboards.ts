import { writeFileSync } from 'node:fs';
import type { ObservabilityBackend } from '../../lib/api';
import {
  DashboardFilesError,
  dashboardFileJsonSchema,
  dashboardSyncedEvents,
  directorySource,
  planToJson,
  renderApply,
  renderPlan,
  syncDashboards,
} from '../../lib/dashboards';
import { formatHelp, parseCommand, UsageError, type CommandSpec } from '../args';
import { connectFromEnv } from '../connect';
import { assertWritable } from '../output';
import type { CliIO, Command } from '../io';

const spec = {
  usage:
    'cloudops dashboards plan|apply --dir DIR [--json] [--detailed-exitcode] [--prune] [--adopt] [--var NAME=VALUE]...\n' +
    '       cloudops dashboards schema',
  summary:
    'Validate dashboard files (all of them, before any write), show what would change, and apply it.\n' +
    '`${NAME}` in a file is replaced by --var NAME=VALUE or the env var CLOUDOPS_VAR_NAME.\n' +
    'Exit codes: 0 ok; 1 invalid files or a dashboard failed/aborted; 2 usage, or changes pending with --detailed-exitcode.',
  options: {
    dir: { type: 'string' },
    json: { type: 'boolean' },
    'detailed-exitcode': { type: 'boolean' },
    prune: { type: 'boolean' },
    adopt: { type: 'boolean' },
    var: { type: 'string', multiple: true },
    events: { type: 'string' },
  },
  help: {
    dir: 'directory of dashboard files (.yaml, .yml, .json), searched recursively',
    json: 'print the plan / result as JSON',
    'detailed-exitcode': 'plan: exit 2 when changes are pending (for CI checks)',
    prune: 'delete dashboards cloudops owns that no file declares',
    adopt: 'take over a hand-made dashboard with the same name instead of creating a new one',
    var: 'value for a ${NAME} placeholder (repeatable)',
    events:
      'apply: write the `Dashboard Synced` events (what the function sends to EventBridge) to FILE, for `cloudops alerts provision --file FILE`',
  },
  positionals: 1,
} satisfies CommandSpec<Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>>;

const VAR_ENV_PREFIX = 'CLOUDOPS_VAR_';

export const dashboardsCommand: Command = {
  name: 'dashboards',
  summary: 'dashboards as code: plan | apply | schema',
  async run(argv, io, signal) {
    const { values, positionals } = parseCommand(spec, argv);
    if (values.help) {
      io.out(formatHelp(spec));
      return 0;
    }
    const action = positionals[0];
    if (action === 'schema') {
      io.out(JSON.stringify(dashboardFileJsonSchema(), null, 2));
      return 0;
    }
    if (action !== 'plan' && action !== 'apply') {
      throw new UsageError(
        `expected plan, apply or schema, got ${action ? `"${action}"` : 'nothing'}`,
      );
    }
    if (!values.dir) throw new UsageError('--dir is required');
    if (values.events && action !== 'apply') throw new UsageError('--events applies to apply only');
    // Checked before the first write, so the events of a sync are never lost at the end.
    if (values.events) assertWritable('--events', values.events);
    if (values['detailed-exitcode'] && action !== 'plan') {
      throw new UsageError('--detailed-exitcode applies to plan only');
    }

    const vars = collectVars(io.env, values.var ?? []);
    let backend: ReturnType<typeof backendFromEnv> | undefined;
    try {
      const outcome = await syncDashboards({
        source: directorySource(values.dir),
        // Connect lazily: files are validated first, so bad files fail without any config.
        backend: lazyBackend(() => (backend ??= backendFromEnv(io.env))),
        mode: action,
        vars,
        prune: values.prune ?? false,
        adopt: values.adopt ?? false,
        signal,
        onResult: (r) => {
          if (io.isTTY && !values.json && r.status !== 'unchanged')
            io.err(`  ${r.status} ${r.name}`);
        },
      });
      if (values.json) {
        io.out(
          JSON.stringify(
            outcome.apply
              ? { plan: planToJson(outcome.plan), ...outcome.apply }
              : planToJson(outcome.plan),
            null,
            2,
          ),
        );
      } else {
        io.out(renderPlan(outcome.plan));
        if (outcome.apply) io.out(renderApply(outcome.apply));
      }
      if (outcome.apply && values.events) {
        const events = dashboardSyncedEvents(outcome.apply.results, new Date());
        writeFileSync(values.events, JSON.stringify(events, null, 2) + '\n');
      }
      if (outcome.apply) return outcome.apply.ok ? 0 : 1;
      return values['detailed-exitcode'] && outcome.plan.pending ? 2 : 0;
    } catch (error) {
      if (!(error instanceof DashboardFilesError)) throw error;
      if (values.json) io.out(JSON.stringify({ ok: false, errors: error.fileIssues }, null, 2));
      io.err(error.message);
      return 1;
    } finally {
      backend?.close();
    }
  },
};

function collectVars(env: CliIO['env'], flags: readonly string[]): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (name.startsWith(VAR_ENV_PREFIX) && value !== undefined)
      vars[name.slice(VAR_ENV_PREFIX.length)] = value;
  }
  for (const flag of flags) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(flag);
    if (!match) throw new UsageError(`--var expects NAME=VALUE, got "${flag}"`);
    vars[match[1]] = match[2]!;
  }
  return vars;
}

/** Defers building clients (and reading connection settings) to the first call. */
function lazyBackend(get: () => ObservabilityBackend): ObservabilityBackend {
  return {
    get mode() {
      return get().mode;
    },
    listDashboards: (o) => get().listDashboards(o),
    getDashboard: (id, o) => get().getDashboard(id, o),
    createDashboard: (body, o) => get().createDashboard(body, o),
    updateDashboard: (id, body, o) => get().updateDashboard(id, body, o),
    deleteDashboard: (id, o) => get().deleteDashboard(id, o),
    listAlerts: (o) => get().listAlerts(o),
    getAlert: (id, o) => get().getAlert(id, o),
    createAlert: (body, o) => get().createAlert(body, o),
    updateAlert: (id, body, o) => get().updateAlert(id, body, o),
    deleteAlert: (id, o) => get().deleteAlert(id, o),
  };
}

/** The dashboards of the first configured service, through the configured deployment mode. */
export function backendFromEnv(env: CliIO['env']): ObservabilityBackend & { close(): void } {
  const connection = connectFromEnv(env);
  try {
    return {
      ...connection.clients.backend(connection.serviceIds[0]),
      close: () => connection.close(),
    };
  } catch (error) {
    connection.close();
    throw error;
  }
}
