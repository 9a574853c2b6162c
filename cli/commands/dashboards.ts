import { writeFileSync } from 'node:fs';
import {
  DashboardFilesError,
  folderFileJsonSchema,
  DEFAULT_OWNER,
  DEFAULT_OWNER_WARNING,
  directorySource,
  listsOnce,
  loadDashboardGroups,
  OWNER_ID,
  planServiceSync,
  planToJson,
  renderApply,
  renderPlan,
  renderPlanMarkdown,
  savedServiceSync,
  StalePlanError,
  useColor,
  type AppliedSync,
  type DashboardResult,
  type ServiceSync,
} from '../../lib/dashboards';
import { readSavedPlan, writeSavedPlan, type ServicePlan } from '../../lib/dashboards/saved-plan';
import { resolveSavedWebhooks, savedWebhooksOf } from '../../lib/dashboards/saved-webhooks';
import { newPlanSalt } from '../../lib/dashboards/value-digest';
import type { DesiredWebhook } from '../../lib/dashboards/types';
import type { ObservabilityBackend } from '../../lib/api';
import { ValidationError } from '../../lib/errors';
import { formatHelp, parseCommand, UsageError, type CommandSpec } from '../args';
import { terminalAsk, type Ask } from '../ask';
import type { CliIO, Command } from '../io';
import { assertWritable } from '../output';
import { EXIT } from '../exit';
import { collectVars } from '../vars';
import {
  ALLOW_DELETE_ALL_HELP,
  DASHBOARDS_FLAG_HELP,
  REMOTE_VALIDATE_HELP,
} from './dashboards-help';
import { pullDashboards } from './dashboards-pull';
import { servicesFromEnv, type DashboardServices } from './dashboards-services';
import { runDashboardsValidate } from './dashboards-validate';
import { forTerminal, forTerminalDeep } from '../../lib/text/terminal';

const spec = {
  usage:
    'cloudops dashboards plan  --dir DIR [--out FILE] [--format text|markdown|json] [--detailed-exitcode] [options]\n' +
    '       cloudops dashboards apply --dir DIR [--auto-approve] [options]\n' +
    '       cloudops dashboards apply PLANFILE\n' +
    '       cloudops dashboards pull  --dir DIR [--key KEY]... [--name NAME]...\n' +
    '       cloudops dashboards schema',
  summary:
    'Dashboards as code. plan validates every file (before any request), reads the service and\n' +
    'shows per dashboard what changes, old -> new, tile alerts included. apply writes it: from\n' +
    '--dir (one fresh read, then only the writes) or from a plan saved with --out (applied exactly,\n' +
    'refused without any write if anything it touches changed since, a webhook value included:\n' +
    'the file keeps variables and secret ids, never values). On a terminal apply --dir\n' +
    'shows the plan and asks; off a terminal it needs --auto-approve.\n' +
    '`${NAME}` in a file is replaced by --var NAME=VALUE or the env var CLOUDOPS_VAR_NAME.\n' +
    `Ownership: dashboards are owned per --owner (env CLOUDOPS_DASHBOARDS_OWNER, default "${DEFAULT_OWNER}");\n` +
    "plan, apply and --prune touch only that owner's dashboards.\n" +
    'Services: a file listing `services: [ID, ...]` is planned once per listed service (each plan\n' +
    'names its service); other files go to --service, else the first of CLOUDOPS_SERVICE_ID.\n' +
    '\n' +
    'Exit codes:\n' +
    '  0    success (plan: no changes, or changes without --detailed-exitcode)\n' +
    '  1    invalid files, a dashboard or alert failed, a key owned by another owner, a stale plan file\n' +
    '  2    plan --detailed-exitcode: changes pending (dashboards or alerts)\n' +
    '  64   usage error (unknown flag, missing --dir, ...)\n' +
    '  130  interrupted (Ctrl-C); the output lists what was applied and what was not',
  options: {
    dir: { type: 'string' },
    out: { type: 'string' },
    json: { type: 'boolean' },
    format: { type: 'string' },
    'detailed-exitcode': { type: 'boolean' },
    'auto-approve': { type: 'boolean' },
    prune: { type: 'boolean' },
    adopt: { type: 'boolean' },
    owner: { type: 'string' },
    target: { type: 'string', multiple: true },
    service: { type: 'string' },
    key: { type: 'string', multiple: true },
    name: { type: 'string', multiple: true },
    var: { type: 'string', multiple: true },
    events: { type: 'string' },
    'no-remote-validate': { type: 'boolean' },
    'allow-delete-all': { type: 'boolean' },
    force: { type: 'boolean' },
  },
  help: {
    dir: DASHBOARDS_FLAG_HELP.dir,
    out: 'plan: save the plan to FILE for `dashboards apply FILE`',
    json: DASHBOARDS_FLAG_HELP.json,
    format: DASHBOARDS_FLAG_HELP.format,
    'detailed-exitcode': 'plan: exit 2 when changes are pending, alerts included (for CI checks)',
    'auto-approve': 'apply: do not ask (required off a terminal, unless applying a plan file)',
    prune: DASHBOARDS_FLAG_HELP.prune,
    adopt: DASHBOARDS_FLAG_HELP.adopt,
    owner: `whose dashboards these are (env CLOUDOPS_DASHBOARDS_OWNER; default "${DEFAULT_OWNER}")`,
    target: 'only this dashboard key (repeatable)',
    service:
      'only this configured service (CLOUDOPS_SERVICE_ID lists them): files without `services:` ' +
      'go to it (default: the first), files listing other services are skipped',
    key: 'pull: only this dashboard key (repeatable)',
    name: 'pull: only dashboards with this name (repeatable)',
    var: 'value for a ${NAME} placeholder (repeatable)',
    events:
      'apply: also write the `Dashboard Synced` events (what the function sends to EventBridge) to FILE',
    'no-remote-validate': REMOTE_VALIDATE_HELP,
    'allow-delete-all': ALLOW_DELETE_ALL_HELP,
    force: 'pull: overwrite files that exist (else pull refuses, writing nothing)',
  },
  positionals: 2,
} satisfies CommandSpec<Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>>;

export const dashboardsCommand: Command & {
  runWith(argv: string[], io: CliIO, signal: AbortSignal, ask?: Ask): Promise<number>;
} = {
  name: 'dashboards',
  summary: 'dashboards as code: plan | apply | pull | schema',
  run(argv, io, signal) {
    return this.runWith(argv, io, signal, terminalAsk);
  },
  async runWith(argv, io, signal, ask = terminalAsk) {
    try {
      if (argv[0] === 'validate') return await runDashboardsValidate(argv.slice(1), io);
      return await runDashboards(argv, io, signal, ask);
    } catch (error) {
      // Usage errors have their own code here: 2 means "changes pending" to CI scripts.
      if (!(error instanceof UsageError)) throw error;
      io.err(
        `cloudops dashboards: ${error.message}\nRun \`cloudops dashboards --help\` for usage.`,
      );
      return EXIT.usage;
    }
  },
};

type Format = 'text' | 'markdown' | 'json';
type Values = ReturnType<typeof parseCommand<typeof spec.options>>['values'];

async function runDashboards(
  argv: string[],
  io: CliIO,
  signal: AbortSignal,
  ask: Ask,
): Promise<number> {
  const { values, positionals } = parseCommand(spec, argv);
  if (values.help) {
    io.out(formatHelp(spec));
    return EXIT.ok;
  }
  const [action, planFile] = positionals;
  if (action === 'schema') {
    io.out(JSON.stringify(folderFileJsonSchema(), null, 2));
    return EXIT.ok;
  }
  if (action !== 'plan' && action !== 'apply' && action !== 'pull') {
    throw new UsageError(
      `expected plan, apply, pull or schema, got ${action ? `"${action}"` : 'nothing'}`,
    );
  }
  const format = formatOf(values.format, values.json);
  const owner = values.owner ?? io.env.CLOUDOPS_DASHBOARDS_OWNER ?? DEFAULT_OWNER;
  if (!OWNER_ID.test(owner))
    throw new UsageError(`--owner expects 1-23 letters, digits, ".", "_" or "-", got "${owner}"`);
  checkFlags(action, planFile, values);

  let connection: DashboardServices | undefined;
  // Connect lazily: files are validated first, so bad files fail without any config.
  const connect = () => (connection ??= servicesFromEnv(io.env, values.service));
  try {
    if (action === 'pull') return await pull(values, owner, format, io, signal, connect());
    if (planFile !== undefined) return await applySavedPlan(planFile, values, io, signal, connect);
    if (action === 'apply' && !values['auto-approve'] && !io.isTTY)
      throw new UsageError(
        'apply --dir off a terminal needs --auto-approve (or apply a saved plan: plan --out FILE, then apply FILE)',
      );
    const runs = await planServices(values, owner, io, signal, connect);
    if (action === 'plan') return await printPlan(runs, values, owner, format, io);
    return await confirmAndApply(runs, values, format, io, ask);
  } catch (error) {
    return failureCode(error, format, io, signal);
  } finally {
    connection?.close();
  }
}

/** Flags that belong to another action, and the plan-file / --dir choice. */
function checkFlags(action: string, planFile: string | undefined, values: Values): void {
  const only = (flag: string, ok: boolean, where: string) => {
    if (!ok) throw new UsageError(`--${flag} applies to ${where} only`);
  };
  only('events', !values.events || action === 'apply', 'apply');
  // Checked before the first write, so the events of a sync are never lost at the end.
  if (values.events) assertWritable('--events', values.events);
  only('detailed-exitcode', !values['detailed-exitcode'] || action === 'plan', 'plan');
  only('out', !values.out || action === 'plan', 'plan');
  only('auto-approve', !values['auto-approve'] || action === 'apply', 'apply');
  only('key', !values.key || action === 'pull', 'pull');
  only('name', !values.name || action === 'pull', 'pull');
  only('force', !values.force || action === 'pull', 'pull');
  if (planFile !== undefined && action !== 'apply')
    throw new UsageError(`unexpected argument: ${planFile}`);
  if (planFile !== undefined && values.dir)
    throw new UsageError('apply takes either a plan file or --dir, not both');
  if (planFile === undefined && !values.dir) throw new UsageError('--dir is required');
}

/** The exit code of an error a person can act on (other errors reach the CLI's handler). */
function failureCode(error: unknown, format: Format, io: CliIO, signal: AbortSignal): number {
  if (signal.aborted) {
    io.err('Interrupted before any write; nothing was applied.');
    return EXIT.interrupted;
  }
  if (error instanceof DashboardFilesError) {
    if (format === 'json') io.out(JSON.stringify({ ok: false, errors: error.fileIssues }, null, 2));
    io.err(error.message);
    return EXIT.failure;
  }
  if (error instanceof StalePlanError || error instanceof ValidationError) {
    io.err(`cloudops dashboards: ${error.message}`);
    return EXIT.failure;
  }
  throw error;
}

function formatOf(format: string | undefined, json: boolean | undefined): Format {
  if (json && format && format !== 'json')
    throw new UsageError(`--json and --format ${format} disagree`);
  const f = json ? 'json' : (format ?? 'text');
  if (f !== 'text' && f !== 'markdown' && f !== 'json')
    throw new UsageError(`--format expects text, markdown or json, got "${f}"`);
  return f;
}

async function pull(
  values: Values,
  owner: string,
  format: Format,
  io: CliIO,
  signal: AbortSignal,
  services: DashboardServices,
): Promise<number> {
  const serviceId = services.defaultService;
  const { files, warnings } = await pullDashboards(services.backendFor(serviceId), values.dir!, {
    keys: [...(values.target ?? []), ...(values.key ?? [])], // --key: pull's old name for --target
    names: values.name ?? [],
    owner,
    force: values.force ?? false,
    signal,
  });
  for (const warning of warnings) io.err(`warning: ${forTerminal(warning)}`);
  if (format === 'json') {
    const listed = files.map(({ file, key, name, alerts }) => ({ file, key, name, alerts }));
    io.out(
      JSON.stringify({ service: serviceId, dir: values.dir, files: listed, warnings }, null, 2),
    );
    return EXIT.ok;
  }
  for (const w of files) io.out(`wrote ${w.file} ("${forTerminal(w.name)}")`);
  io.out(`Pulled ${files.length} dashboard(s) from service ${serviceId} into ${values.dir}.`);
  return EXIT.ok;
}

/** One service's sync (the orchestration of lib/dashboards sync.ts), planned. */
interface ServiceRun {
  service: string;
  sync: ServiceSync;
  /** The folder's webhooks planned for this service (a saved plan keeps their references). */
  webhooks?: readonly DesiredWebhook[];
}

/**
 * Validates every file (before any request), groups them by service, and plans the one
 * orchestration once per service: each is its own list (and its own writes later).
 */
async function planServices(
  values: Values,
  owner: string,
  io: CliIO,
  signal: AbortSignal,
  connect: () => DashboardServices,
): Promise<ServiceRun[]> {
  if (values.prune && owner === DEFAULT_OWNER) io.err(`warning: ${DEFAULT_OWNER_WARNING}`);
  // Names resolve and plans read through one backend per service: each list read once.
  const planning = new Map<string, ObservabilityBackend>();
  const planningBackend = (service: string) => {
    if (!planning.has(service)) planning.set(service, listsOnce(connect().backendFor(service)));
    return planning.get(service)!;
  };
  const groups = await loadDashboardGroups(directorySource(values.dir!), {
    vars: collectVars(io.env, values.var ?? []),
    secretsClient: () => connect().secrets(),
    configuredServices: () => connect().ids,
    // Files without `services:` go to --service, else the first configured service.
    scope: () => ({
      defaultService: connect().defaultService,
      ...(values.service !== undefined ? { only: values.service } : {}),
    }),
    directory: (service) => planningBackend(service),
    call: { signal },
  });
  const services = connect();
  const declared = groups.flatMap((g) => g.dashboards.map((d) => d.key));
  const runs: ServiceRun[] = [];
  for (const g of groups) {
    const sync = await planServiceSync(g.dashboards, {
      backend: services.backendFor(g.service),
      prune: values.prune ?? false,
      allowDeleteAll: values['allow-delete-all'] ?? false,
      adopt: values.adopt ?? false,
      owner,
      targets: values.target ?? [],
      declaredElsewhere: declared,
      remoteValidate: !values['no-remote-validate'],
      rateLimit: services.rateLimit,
      files: directorySource(values.dir!),
      ...(g.objects ? { objects: g.objects } : {}),
      planningBackend: planningBackend(g.service),
      signal,
    });
    runs.push({ service: g.service, sync, ...(g.objects ? { webhooks: g.objects.webhooks } : {}) });
  }
  return runs;
}

const plansOf = (runs: readonly ServiceRun[]): ServicePlan[] =>
  runs.map(({ service, sync }) => ({ service, plan: sync.plan }));

/** `plan`: prints every service's plan, saves it with --out. */
async function printPlan(
  runs: readonly ServiceRun[],
  values: Values,
  owner: string,
  format: Format,
  io: CliIO,
): Promise<number> {
  const plans = plansOf(runs);
  printPlans(io, plans, format, useColor(io.isTTY, io.env));
  if (values.out) {
    const salt = newPlanSalt();
    const saved = runs.map(({ service, sync, webhooks }) => ({
      service,
      plan: sync.plan,
      webhooks: savedWebhooksOf(sync.plan.objects, webhooks ?? [], salt),
    }));
    await writeSavedPlan(values.out, {
      createdAt: new Date().toISOString(),
      owner,
      salt,
      plans: saved,
    });
    if (format === 'text')
      io.out(
        `Saved the plan to ${values.out}: apply it with \`cloudops dashboards apply ${values.out}\`.`,
      );
  }
  if (plans.some((p) => p.plan.counts.conflict > 0)) return EXIT.failure;
  const pending = plans.some((p) => p.plan.pending);
  return values['detailed-exitcode'] && pending ? EXIT.changes : EXIT.ok;
}

/**
 * `apply --dir`: on a terminal the plans are shown and one question covers every service
 * (only "yes" applies); with --auto-approve the text plan is printed. Progress lines on a
 * terminal, one per dashboard written.
 */
async function confirmAndApply(
  runs: readonly ServiceRun[],
  values: Values,
  format: Format,
  io: CliIO,
  ask: Ask,
): Promise<number> {
  const plans = plansOf(runs);
  const color = useColor(io.isTTY, io.env);
  if (!values['auto-approve']) {
    printPlans(io, plans, 'text', color);
    const conflicts = plans.some((p) => p.plan.counts.conflict > 0);
    if (!plans.some((p) => p.plan.pending) && !conflicts) return EXIT.ok;
    const names = plans.map((p) => p.service);
    const answer = await ask(
      `Apply these changes to ${names.length > 1 ? 'services' : 'service'} ${names.join(', ')}? Only "yes" applies: `,
    );
    if (answer.trim() !== 'yes') {
      io.err('Apply cancelled; nothing was written.');
      return EXIT.failure;
    }
  } else if (format === 'text') {
    printPlans(io, plans, 'text', color);
  }
  const applied = await applyAll(runs, (r) => {
    if (io.isTTY && format === 'text' && r.status !== 'unchanged')
      io.err(`  ${r.status} ${forTerminal(r.name)}`);
  });
  return finishApply(io, applied, format, values.events);
}

/** One service's plan as printed: the JSON of one service keeps its single-service shape. */
function printPlans(
  io: CliIO,
  plans: readonly ServicePlan[],
  format: Format,
  color: boolean,
): void {
  if (format === 'json') {
    const each = plans.map(({ service, plan }) => ({ service, ...(planToJson(plan) as object) }));
    io.out(
      JSON.stringify(
        each.length === 1 ? each[0] : { pending: plans.some((p) => p.plan.pending), plans: each },
        null,
        2,
      ),
    );
  } else if (format === 'markdown')
    io.out(
      plans
        .map(({ service, plan }) => renderPlanMarkdown(forTerminalDeep(plan), { service }))
        .join('\n\n'),
    );
  // Names and values in a plan are the service's: no escape sequence of theirs reaches the screen.
  else
    io.out(
      plans
        .map(({ service, plan }) => renderPlan(forTerminalDeep(plan), { service, color }))
        .join('\n\n'),
    );
}

interface ServiceApply extends ServicePlan, AppliedSync {}

/**
 * Applies each service's plan in turn. After an interrupt the later services are applied with
 * an aborted signal, which writes nothing and lists every change as not applied.
 */
async function applyAll(
  runs: readonly ServiceRun[],
  onResult?: (r: DashboardResult) => void,
): Promise<ServiceApply[]> {
  const out: ServiceApply[] = [];
  for (const { service, sync } of runs) {
    const applied = await sync.apply(onResult ? { onResult } : {});
    out.push({ service, plan: sync.plan, ...applied });
  }
  return out;
}

/** Prints what was applied (and not), writes --events, and gives the exit code. */
function finishApply(
  io: CliIO,
  applied: readonly ServiceApply[],
  format: Format,
  eventsFile: string | undefined,
): number {
  const several = applied.length > 1;
  if (format === 'json') {
    const each = applied.map(({ service, plan, result }) => ({
      service,
      plan: planToJson(plan),
      ...result,
    }));
    io.out(
      JSON.stringify(
        several
          ? {
              ok: applied.every((a) => a.result.ok),
              interrupted: applied.some((a) => a.result.interrupted),
              services: each,
            }
          : { plan: each[0].plan, ...applied[0].result },
        null,
        2,
      ),
    );
  } else
    io.out(
      applied
        .map(({ service, result }) =>
          several
            ? `Service ${service}:\n${renderApply(forTerminalDeep(result))}`
            : renderApply(forTerminalDeep(result)),
        )
        .join('\n\n'),
    );
  if (eventsFile) {
    const events = applied.flatMap((a) => a.events);
    writeFileSync(eventsFile, JSON.stringify(events, null, 2) + '\n');
  }
  if (applied.some((a) => a.result.interrupted)) return EXIT.interrupted;
  return applied.every((a) => a.result.ok) ? EXIT.ok : EXIT.failure;
}

/** `apply PLANFILE`: every service's part is checked before any of them is written. */
async function applySavedPlan(
  file: string,
  values: Values,
  io: CliIO,
  signal: AbortSignal,
  connect: () => DashboardServices,
): Promise<number> {
  const format = formatOf(values.format, values.json);
  const saved = await readSavedPlan(file);
  const all = saved.plans.map((p) => p.service);
  const plans = values.service
    ? saved.plans.filter((p) => p.service === values.service)
    : saved.plans;
  if (plans.length === 0)
    throw new UsageError(
      `the plan in ${file} is for service ${all.join(', ')}, not --service ${values.service}`,
    );
  const services = connect();
  for (const { service } of plans)
    if (!services.ids.includes(service) && service !== services.defaultService)
      throw new UsageError(
        `the plan in ${file} is for service ${service}, which is not configured (CLOUDOPS_SERVICE_ID: ${services.ids.join(', ') || 'none'})`,
      );
  if (format === 'text')
    io.out(
      `Applying the plan saved at ${saved.createdAt} for service ${plans.map((p) => p.service).join(', ')}, owner "${saved.owner}".`,
    );
  // The webhooks' values first (Secrets Manager only), then the service: refuses, having
  // written nothing on any service, when a value or anything the plan touches changed since.
  const webhooks = await resolveSavedWebhooks(
    plans.map((p) => ({ changes: p.plan.objects, webhooks: p.webhooks })),
    {
      salt: saved.salt,
      vars: collectVars(io.env, values.var ?? []),
      secrets: () => services.secrets(),
    },
  );
  const runs: ServiceRun[] = [];
  for (const [i, { service, plan }] of plans.entries()) {
    const backend = services.backendFor(service);
    const sync = await savedServiceSync(plan, { backend, signal }, webhooks[i]);
    runs.push({ service, sync });
  }
  return finishApply(io, await applyAll(runs), format, values.events);
}
