/**
 * Dead exports: an export of lib, functions, cdk, cli, sandbox or bench that no other file uses,
 * or that only tests use. Reads the program as the type checker sees it (tsconfig.json), so
 * imports through barrels, `import type`, namespace access and destructured lazy `import()` all
 * count as uses; works offline, needs nothing beyond TypeScript.
 *
 *   npm run lint:exports            the report; exits 1 on an export nothing uses, or one only
 *                                   tests use that KEPT_FOR_TESTS does not list
 *   npm run lint:exports -- --json  the same as JSON
 *
 * A third section lists exports only their own file uses (the `export` could go): information,
 * since a module's exported schema or option type can be its API before anyone imports it.
 * One run type-checks the whole program, about as long as `npm run typecheck`.
 */
import path from 'node:path';
import ts from 'typescript';
import { REPO_ROOT } from './source-tree';

/** Folders whose exports are checked; test/ only uses them. */
const PRODUCT_FOLDERS = ['lib', 'functions', 'cdk', 'cli', 'sandbox', 'bench'];

/**
 * Exports used from outside TypeScript: the `handler` a Lambda (or a bench baseline bundle) is
 * deployed with, named in the CDK construct and esbuild by string; and what the bundling shims
 * give the packages they replace (BUNDLING's `--alias`, cdk/constructs/function.ts).
 */
const ENTRY_EXPORTS: readonly RegExp[] = [
  /^(functions|bench\/baselines)\/.+#handler$/,
  /^cdk\/bundling-shims\/.+#/,
];

/**
 * Exports only tests use that stay exported, each with its reason (a caller's API the tests
 * happen to be the first to use, or a seam the suite needs). Everything else only tests use
 * becomes internal or moves to test/support.
 */
export const KEPT_FOR_TESTS: Readonly<Record<string, string>> = {
  'bench/bundles.ts#esbuildOptions':
    "the stack's bundling as esbuild options, which the bundle-floor test builds with",
  'cdk/config.ts#stackConfigSchema': 'the context schema the cdk/README table is checked against',
  'cdk/config.ts#WATCHDOG_CONTEXT_KEYS':
    'the watchdog context keys the cdk/README table is checked against',
  'cdk/constructs/function.ts#ESM_REQUIRE_BANNER': 'the banner a bundled trace is decoded past',
  'lib/dashboards/json-schema.ts#dashboardFileJsonSchema':
    'the JSON Schema of the dashboard kind alone, as the tests of its fields read it',
  'lib/api/errors.ts#ResponseValidationError':
    'the typed error of an answer that fails its schema, which the client tests assert',
  'lib/dashboards/load.ts#loadDashboards':
    'the dashboards of a folder alone (loadFolder without its webhooks and saved searches)',
  'cli/cli.ts#COMMANDS': 'the command table help and completion are checked against',
  'cli/commands/completion.ts#completionWords':
    'the words a shell completes, checked without a shell',
  'cli/commands/dashboards.ts#Ask': "the confirm prompt's seam, answered by tests",
  'cli/commands/dashboards.ts#DASHBOARDS_EXIT': 'the exit codes scripts rely on',
  'cli/suggest.ts#closest': 'the pure "did you mean" match beside the help that prints it',
  'functions/rotate-key/sentinel.ts#createSentinelHandler':
    'the deployed handler with injected clients, run by tests',
  'functions/runtime.ts#invocationLogFields': 'the fields every log line of an invocation carries',
  'lib/alerts/batch.ts#QueueRecord': 'the SQS record shape a batch takes',
  'lib/alerts/marker.ts#formatMarker': 'the pure marker writer beside its parser',
  'lib/alerts/provision.ts#AlertProvisionError': 'a typed error callers catch',
  'lib/api/create-once.ts#CreateOnceOptions': "createOnce's options",
  'lib/api/errors.ts#RedirectRefusedError': 'a typed error callers catch',
  'lib/api/errors.ts#WebhookInUseError': 'a typed error callers catch',
  'lib/api/http.ts#HttpCore': "the HTTP core's type, the clients' seam",
  'lib/dashboards/normalize.ts#comparableQuery': 'a pure normalizer step, tested alone',
  'lib/dashboards/normalize.ts#normalizeTile': 'a pure normalizer step, tested alone',
  'lib/dashboards/normalize.ts#tileDiff': 'a pure normalizer step, tested alone',
  'lib/dashboards/ownership.ts#markerTags': 'the ownership tags a dashboard carries',
  'lib/dashboards/plan.ts#EmptySourcePruneError': 'a typed error callers catch',
  'lib/dashboards/plan.ts#matchTiles': "the pure tile matching the planner's tile ids rest on",
  'lib/dashboards/sync.ts#SyncOptions': "syncDashboards' options",
  'lib/dashboards/validate.ts#deriveKey': 'the stable tile key pull and validate share',
  'lib/keys/audit.ts#AuditInput': "the pure audit's input",
  'lib/keys/sentinel.ts#AuditRecord': "the sentinel's stored finding",
  'lib/pipes/classify.ts#parseClassifyOptions': 'the pure settings parser beside its use',
  'lib/pipes/decide.ts#parsePolicy': 'the pure settings parser beside its use',
  'lib/pipes/enqueue.ts#planBatches': 'the pure batch planner beside its executor',
  'lib/pipes/observe.ts#progressReadingOf':
    "the pure step from a metrics reading to a pipe's counters, tested alone",
  'lib/pipes/progress.ts#increase':
    'the pure counter increase (a decrease is a reset), tested alone',
  'lib/pipes/watchdog.ts#WatchdogNotice': "the watchdog's notice, as receivers get it",
  'lib/schemas/dashboard.ts#tileWrite': 'the tile write schema (the contract)',
  'lib/watch/condition.ts#Watched': "the engine's per-subject state",
  'lib/watch/dynamo-store.ts#createWatchTable':
    'makes the watch table where no stack does (local runs)',
  'lib/watch/notifiers/eventbridge.ts#createEventBridgeNotifier':
    "a notifier's factory; the registry builds it from settings",
  'lib/watch/notifiers/pagerduty.ts#createPagerDutyNotifier':
    "a notifier's factory; the registry builds it from settings",
  'lib/watch/notifiers/slack.ts#createSlackNotifier':
    "a notifier's factory; the registry builds it from settings",
  'lib/watch/notifiers/sns.ts#createSnsNotifier':
    "a notifier's factory; the registry builds it from settings",
  'lib/watch/notifiers/webhook.ts#createWebhookNotifier':
    "a notifier's factory; the registry builds it from settings",
  'cli/connect.ts#terminalLogger': 'how the CLI shows log lines; tests read what a person sees',
  'lib/api/errors.ts#RateLimitedError': 'a typed error callers catch',
  'lib/api/errors.ts#ServiceIdleError': 'a typed error callers catch',
  'lib/api/errors.ts#UnexpectedResponseError': 'a typed error callers catch',
  'lib/api/http.ts#DEFAULT_MAX_RESPONSE_BYTES': 'the documented response cap a test overflows',
  'lib/api/management-client.ts#ManagementClientOptions': "createManagementClient's options",
  'lib/api/observability-client.ts#ObservabilityClientOptions': "the client factory's options",
  'lib/api/retry.ts#backoff': 'the pure backoff curve beside the loop that waits',
  'lib/credentials/middleware.ts#clearCredentialsCache': 'resets the container-wide cache',
  'lib/credentials/secrets-manager.ts#fetchSecret':
    'one read of a secret by stage, which the stage tests hold to what it sends',
  'lib/events/schemas.ts#ALERT_PROVISION_REQUESTED': 'the published event contract',
  'lib/events/schemas.ts#AlertProvisionRequestedEvent': 'the published event contract',
  'lib/events/schemas.ts#DeclaredAlertDetail': 'the published event contract',
  'lib/events/schemas.ts#cloudopsEvent': 'the published event contract',
  'lib/events/schemas.ts#pipeStateChangedEvent': 'the published event contract',
  'lib/keys/rotation.ts#RotationApi': "the rotator's injected client, faked by tests",
  'lib/keys/rotation.ts#RotationStep': 'the step names Secrets Manager sends',
  'lib/log.ts#setLogSink': "where log lines go; the suite's leak scan captures through it",
  'lib/schemas/common.ts#aliased': 'the tolerant reader for renamed fields',
  'lib/schemas/metrics.ts#serviceReading': 'reads a stored metrics reading back (last readings)',
  'sandbox/faults.ts#FAULT_KINDS': 'the fault kinds a fault spec may name',
  'sandbox/index.ts#DEFAULT_RATE_LIMITS': "the real service's limits a sandbox can apply",
  'sandbox/index.ts#SandboxOptions': "startSandbox's options",
  'sandbox/secrets-manager/emulator.ts#SecretsManagerEmulator': "the emulator's handle",
  'sandbox/secrets-manager/emulator.ts#SecretsManagerEmulatorOptions': "the emulator's options",
};

export interface ExportUse {
  /** `file#name` of the exported declaration. */
  readonly id: string;
  readonly kind: 'value' | 'type';
  /** Also used inside its own file (then only `export` goes; else the whole declaration). */
  readonly usedInOwnFile: boolean;
  /** Files outside its own that use it, split into tests and the rest. */
  readonly testUsers: readonly string[];
  readonly otherUsers: readonly string[];
}

export interface UnusedExportsReport {
  /** Nothing uses it, not even its own file: delete it. */
  readonly unused: ExportUse[];
  /** Only files under test/ use it, and KEPT_FOR_TESTS does not list it. */
  readonly testOnly: ExportUse[];
  /** Only its own file uses it: the `export` could go. */
  readonly ownFileOnly: ExportUse[];
}

const relative = (file: string) => path.relative(REPO_ROOT, file).split(path.sep).join('/');
const isProductFile = (file: string) =>
  PRODUCT_FOLDERS.some((folder) => file.startsWith(`${folder}/`)) && !file.endsWith('.d.ts');

function loadProgram(): ts.Program {
  const configPath = path.join(REPO_ROOT, 'tsconfig.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!parsed) throw new Error(`cannot read ${configPath}`);
  return ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
}

/** The declaration a name finally stands for (through import and re-export aliases). */
function original(checker: ts.TypeChecker, symbol: ts.Symbol): ts.Symbol {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

/** The exports each product file declares itself (a barrel's re-exports belong to their source). */
function declaredExports(program: ts.Program, checker: ts.TypeChecker) {
  const exports = new Map<ts.Symbol, { id: string; file: string; kind: 'value' | 'type' }>();
  for (const source of program.getSourceFiles()) {
    const file = relative(source.fileName);
    if (!isProductFile(file)) continue;
    const moduleSymbol = checker.getSymbolAtLocation(source);
    if (!moduleSymbol) continue;
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const target = original(checker, exported);
      const declaration = target.declarations?.[0];
      if (!declaration || declaration.getSourceFile() !== source) continue;
      const kind = target.flags & ts.SymbolFlags.Value ? 'value' : 'type';
      exports.set(target, { id: `${file}#${exported.name}`, file, kind });
    }
  }
  return exports;
}

/** The symbol a name node refers to, seeing through destructuring (`const { a } = await import(…)`). */
function referencedSymbol(checker: ts.TypeChecker, name: ts.Identifier): ts.Symbol | undefined {
  const parent = name.parent;
  if (ts.isBindingElement(parent) && ts.isObjectBindingPattern(parent.parent)) {
    const key = parent.propertyName ?? parent.name;
    if (key !== name && parent.propertyName) return undefined;
    const property = ts.isIdentifier(key) ? key.text : undefined;
    if (property === undefined) return undefined;
    return checker.getTypeAtLocation(parent.parent).getProperty(property);
  }
  return checker.getSymbolAtLocation(name);
}

/** A name inside `export { a } from './x'`: passing an export on is not using it. */
const isReExport = (name: ts.Identifier) =>
  ts.isExportSpecifier(name.parent) && name.parent.parent.parent.moduleSpecifier !== undefined;

export function findUnusedExports(program: ts.Program = loadProgram()): UnusedExportsReport {
  const checker = program.getTypeChecker();
  const exports = declaredExports(program, checker);
  const users = new Map<ts.Symbol, Set<string>>();
  for (const source of program.getSourceFiles()) {
    const file = relative(source.fileName);
    if (file.startsWith('..') || file.startsWith('node_modules/') || source.isDeclarationFile)
      continue;
    const visit = (node: ts.Node) => {
      if (ts.isIdentifier(node) && !isReExport(node)) {
        const symbol = referencedSymbol(checker, node);
        const target = symbol && original(checker, symbol);
        if (target && exports.has(target)) {
          const isDeclaration = target.declarations?.some(
            (d) => (d as ts.NamedDeclaration).name === node,
          );
          if (!isDeclaration) users.set(target, (users.get(target) ?? new Set()).add(file));
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  const report = {
    unused: [] as ExportUse[],
    testOnly: [] as ExportUse[],
    ownFileOnly: [] as ExportUse[],
  };
  for (const [symbol, { id, file, kind }] of exports) {
    if (ENTRY_EXPORTS.some((entry) => entry.test(id))) continue;
    const all = [...(users.get(symbol) ?? [])].sort();
    const others = all.filter((user) => user !== file);
    const use: ExportUse = {
      id,
      kind,
      usedInOwnFile: all.includes(file),
      testUsers: others.filter((user) => user.startsWith('test/')),
      otherUsers: others.filter((user) => !user.startsWith('test/')),
    };
    if (others.length > 0) {
      if (use.otherUsers.length === 0 && !(id in KEPT_FOR_TESTS)) report.testOnly.push(use);
    } else (use.usedInOwnFile ? report.ownFileOnly : report.unused).push(use);
  }
  const byId = (a: ExportUse, b: ExportUse) => a.id.localeCompare(b.id);
  return {
    unused: report.unused.sort(byId),
    testOnly: report.testOnly.sort(byId),
    ownFileOnly: report.ownFileOnly.sort(byId),
  };
}

function render(report: UnusedExportsReport): string {
  const name = (use: ExportUse) => `  ${use.id}${use.kind === 'type' ? ' (type)' : ''}`;
  return [
    `${report.unused.length} exports nothing uses (delete them):`,
    ...report.unused.map(name),
    '',
    `${report.testOnly.length} exports only tests use (make them internal, move them to test/support, or list them in KEPT_FOR_TESTS with the reason):`,
    ...report.testOnly.map((use) => `${name(use)}: ${use.testUsers.join(', ')}`),
    '',
    `${report.ownFileOnly.length} exports only their own file uses (information: the \`export\` could go):`,
    ...report.ownFileOnly.map(name),
  ].join('\n');
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const report = findUnusedExports();
  process.stdout.write(
    process.argv.includes('--json')
      ? `${JSON.stringify(report, null, 2)}\n`
      : `${render(report)}\n`,
  );
  process.exitCode = report.unused.length + report.testOnly.length > 0 ? 1 : 0;
}
