/**
 * `cloudops dashboards validate --dir DIR`: everything that can be checked without the
 * network (syntax, limits, schema, grid and per-kind rules, variables, duplicate keys). Needs no
 * configuration. Names of sources and webhooks are only resolved by plan/apply (they need the
 * service's lists); validate counts them.
 */
import {
  DashboardFilesError,
  directorySource,
  loadFolder,
  usesNames,
  type DesiredDashboard,
  type FolderObjects,
} from '../../lib/dashboards';
import { formatHelp, parseCommand, UsageError, type CommandSpec } from '../args';
import type { CliIO } from '../io';
import { collectVars } from '../vars';

const spec = {
  usage: 'cloudops dashboards validate --dir DIR [--json] [--var NAME=VALUE]...',
  summary:
    'Check dashboard files offline: syntax, size and nesting limits, the file schema, the grid, ' +
    'the rules of each tile kind, alert thresholds, `${NAME}` variables and the form of `{ secret }` ' +
    'references. No configuration or network needed; `source:` / `webhook:` names and secrets are ' +
    'read by plan and apply.\n' +
    'Exit codes: 0 valid; 1 invalid files; 64 usage.',
  options: {
    dir: { type: 'string' },
    json: { type: 'boolean' },
    var: { type: 'string', multiple: true },
  },
  help: {
    dir: 'directory of dashboard files (.yaml, .yml, .json), searched recursively',
    json: 'print the result as JSON: { ok, dashboards, webhooks, savedSearches, tiles, alerts, errors }',
    var: 'value for a ${NAME} placeholder (repeatable; also CLOUDOPS_VAR_NAME)',
  },
} satisfies CommandSpec<Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>>;

export async function runDashboardsValidate(argv: string[], io: CliIO): Promise<number> {
  const { values } = parseCommand(spec, argv);
  if (values.help) {
    io.out(formatHelp(spec));
    return 0;
  }
  if (!values.dir) throw new UsageError('--dir is required');
  const vars = collectVars(io.env, values.var ?? []);
  let dashboards: DesiredDashboard[];
  let objects: FolderObjects;
  try {
    ({ dashboards, objects } = await loadFolder(directorySource(values.dir), { vars }));
  } catch (error) {
    if (!(error instanceof DashboardFilesError)) throw error;
    if (values.json) io.out(JSON.stringify({ ok: false, errors: error.fileIssues }, null, 2));
    io.err(error.message);
    return 1;
  }
  const tiles = dashboards.reduce((n, d) => n + d.tiles.length, 0);
  const alerts =
    dashboards.reduce((n, d) => n + d.tiles.reduce((m, t) => m + t.alerts.length, 0), 0) +
    objects.savedSearches.reduce((n, s) => n + s.alerts.length, 0);
  const { webhooks, savedSearches } = objects;
  if (values.json) {
    io.out(
      JSON.stringify(
        {
          ok: true,
          dashboards: dashboards.length,
          webhooks: webhooks.length,
          savedSearches: savedSearches.length,
          tiles,
          alerts,
          errors: [],
        },
        null,
        2,
      ),
    );
    return 0;
  }
  const others =
    webhooks.length + savedSearches.length > 0
      ? `, ${webhooks.length} webhook(s), ${savedSearches.length} saved search(es)`
      : '';
  io.out(
    `${dashboards.length} dashboard file(s)${others} valid under ${values.dir}: ${tiles} tile(s), ${alerts} alert(s).` +
      (usesNames(dashboards) || savedSearches.length > 0
        ? '\nSource and webhook names are checked against the service by plan and apply.'
        : ''),
  );
  return 0;
}
