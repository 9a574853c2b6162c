import { describe, expect, it } from 'vitest';
import { importRuleViolations } from './import-rules';
import { compareWithRatchet } from './ratchet';
import { importEdges } from './source-tree';

/** The violations of a small in-memory tree (path -> source). */
function violationsOf(files: Record<string, string>): string[] {
  return importRuleViolations(importEdges(new Map(Object.entries(files))));
}

describe('the import-rule checker', () => {
  it('reports a capability importing another, one line naming both files and the rule', () => {
    expect(
      violationsOf({
        'lib/pipes/watchdog.ts': "import { rotate } from '../keys/rotation';",
        'lib/keys/rotation.ts': 'export const rotate = 1;',
      }),
    ).toEqual(['capabilities-apart: lib/pipes/watchdog.ts → lib/keys/rotation.ts']);
  });

  it('lets a capability use engines and its own files', () => {
    expect(
      violationsOf({
        'lib/keys/rotation.ts': "import { x } from '../api';\nimport { y } from './stages';",
        'lib/keys/stages.ts': "import type { Z } from '../watch/notice';",
        'lib/api/index.ts': "export * from './http';",
        'lib/api/http.ts': "import { log } from '../log';",
        'lib/log.ts': '',
        'lib/watch/notice.ts': '',
      }),
    ).toEqual([]);
  });

  it('counts type-only imports, re-exports and lazy import() as imports', () => {
    expect(
      violationsOf({
        'lib/alerts/plan.ts': "import type { Tile } from '../dashboards/types';",
        'lib/watch/index.ts': "export * from '../pipes';",
        'lib/pipes/index.ts': '',
        'lib/config.ts': "const keys = () => import('./keys/config.js');",
        'lib/keys/config.ts': '',
        'lib/dashboards/types.ts': '',
      }),
    ).toEqual([
      'engines-below-capabilities: lib/alerts/plan.ts → lib/dashboards/types.ts',
      'engines-below-capabilities: lib/config.ts → lib/keys/config.ts',
      'engines-below-capabilities: lib/watch/index.ts → lib/pipes/index.ts',
    ]);
  });

  it('reports lib importing the sandbox, the CLI, a function or the stack', () => {
    expect(
      violationsOf({
        'lib/clients.ts':
          "import '../sandbox/store';\nimport '../cli/io';\nimport '../functions/runtime';\nimport '../cdk/env';",
        'sandbox/store.ts': "import '../lib/schemas';",
        'lib/schemas/index.ts': '',
        'cli/io.ts': "import '../lib/clients';",
        'functions/runtime.ts': '',
        'cdk/env.ts': '',
      }),
    ).toEqual([
      'lib-stands-alone: lib/clients.ts → cdk/env.ts',
      'lib-stands-alone: lib/clients.ts → cli/io.ts',
      'lib-stands-alone: lib/clients.ts → functions/runtime.ts',
      'lib-stands-alone: lib/clients.ts → sandbox/store.ts',
      'no-circle: cli/io.ts → lib/clients.ts → cli/io.ts',
    ]);
  });

  it("lets the sandbox use lib/schemas and the files at lib's top, nothing deeper", () => {
    expect(
      violationsOf({
        'sandbox/store.ts': "import '../lib/schemas/key';\nimport '../lib/redact';",
        'sandbox/auth.ts': "import { createManagementClient } from '../lib/api/management-client';",
        'lib/schemas/key.ts': '',
        'lib/redact.ts': '',
        'lib/api/management-client.ts': '',
      }),
    ).toEqual(['sandbox-on-ground-floor: sandbox/auth.ts → lib/api/management-client.ts']);
  });

  it('reports a circle once, as its shortest loop, naming the other files it ties in', () => {
    expect(
      violationsOf({
        'cli/cli.ts': "const demo = () => import('./commands/demo');",
        'cli/commands/demo.ts': "import { say } from '../demo/context';\nimport '../demo/steps';",
        'cli/demo/steps.ts': "import { say } from './context';",
        'cli/demo/context.ts': "import type { CliIO } from '../cli';",
        'sandbox/a.ts': "import './a';",
      }),
    ).toEqual([
      'no-circle: cli/cli.ts → cli/commands/demo.ts → cli/demo/context.ts → cli/cli.ts; also tied in: cli/demo/steps.ts',
      'no-circle: sandbox/a.ts → sandbox/a.ts',
    ]);
  });

  it('fails a ratchet on a new violation and on a listed one that is gone', () => {
    const listed = ['no-circle: a.ts → b.ts → a.ts', 'capabilities-apart: x → y'];
    expect(compareWithRatchet(['no-circle: a.ts → b.ts → a.ts'], listed)).toEqual({
      unexpected: [],
      fixed: ['capabilities-apart: x → y'],
    });
    expect(
      compareWithRatchet([...listed, 'lib-stands-alone: lib/a.ts → cli/b.ts'], listed),
    ).toEqual({ unexpected: ['lib-stands-alone: lib/a.ts → cli/b.ts'], fixed: [] });
  });
});
