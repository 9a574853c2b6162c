import { describe, expect, it } from 'vitest';
import { importSpecifiers, parseSource, readSourceTree, type SourceTree } from './source-tree';

/**
 * What bundles into the functions imports zod's small build only: classic `zod` is ~95 KiB of
 * every bundle and attaches its methods at import. `zod/locales` brings the English messages,
 * `zod/v4/core` the builders lib/schemas/builders.ts makes zod/mini's classes with.
 */
const FUNCTION_FOLDERS = ['lib', 'functions'];
const ALLOWED_ZOD = new Set(['zod/mini', 'zod/locales', 'zod/v4/core']);

/** `file: specifier` for each import of a zod build other than the small one. */
function classicZodImports(tree: SourceTree): string[] {
  const found: string[] = [];
  for (const [file, text] of tree) {
    for (const specifier of importSpecifiers(parseSource(file, text))) {
      const isZod = specifier === 'zod' || specifier.startsWith('zod/');
      if (isZod && !ALLOWED_ZOD.has(specifier)) found.push(`${file}: ${specifier}`);
    }
  }
  return found;
}

describe('zod in the function bundles', () => {
  it('lib/ and functions/ import zod/mini, never classic zod', () => {
    expect(classicZodImports(readSourceTree(FUNCTION_FOLDERS))).toEqual([]);
  });

  it('the check names a classic import, a type-only one, or a deep path', () => {
    const tree = new Map(
      Object.entries({
        'lib/a.ts': "import * as z from 'zod';",
        'lib/b.ts': "import type { ZodType } from 'zod/v4';",
        'lib/c.ts': "import * as z from 'zod/mini';\nimport { en } from 'zod/locales';",
        'lib/d.ts': "export { z } from 'zod/v4/classic';",
      }),
    );
    expect(classicZodImports(tree)).toEqual([
      'lib/a.ts: zod',
      'lib/b.ts: zod/v4',
      'lib/d.ts: zod/v4/classic',
    ]);
  });
});
