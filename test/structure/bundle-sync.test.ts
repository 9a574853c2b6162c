/**
 * The sync function carries only what a deployed sync run needs: what serves the CLI alone (the
 * editor texts of the files' JSON Schema, the service's dry run of a plan, a folder read at once)
 * stays out of its bundle.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { folderFileJsonSchema } from '../../lib/dashboards/json-schema';
import { bundleOf } from './function-bundle';

function descriptionsIn(node: unknown, into: Set<string> = new Set()): Set<string> {
  if (Array.isArray(node)) for (const v of node) descriptionsIn(v, into);
  else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'description' && typeof v === 'string') into.add(v);
      else descriptionsIn(v, into);
    }
  }
  return into;
}

describe('the sync function bundle', () => {
  let bundle: { files: string[]; text: string };
  beforeAll(async () => {
    bundle = await bundleOf('functions/sync-dashboards/handler.ts');
  }, 60_000);

  it('leaves out the JSON Schema for editors and its texts', () => {
    expect(bundle.files).toContain('lib/dashboards/file-schema.ts');
    expect(bundle.files).not.toContain('lib/dashboards/json-schema.ts');
    // Short ones ("Filter", "Tiles") also occur in messages the function does need.
    const texts = [...descriptionsIn(folderFileJsonSchema())].filter((t) => t.length >= 20);
    expect(texts.length).toBeGreaterThan(100);
    // The only ones left are those lib/schemas puts on the API's own tile shapes.
    expect(texts.filter((t) => bundle.text.includes(t)).sort()).toEqual([
      'A number; [low, high] with between; a string with eq / neq',
      'Legend text (up to 40 characters)',
      'Palette colour of the chart',
      'Palette colour shown when the rule matches',
      'The link, with {{column}} placeholders',
      'external (the one documented kind)',
      'gt, gte, lt, lte, between, eq or neq',
    ]);
  });

  it("leaves out the CLI's dry run and its whole-folder load", () => {
    expect(bundle.files).toContain('lib/dashboards/changed-files.ts');
    expect(bundle.files).not.toContain('lib/dashboards/remote-validate.ts');
    expect(bundle.text).not.toMatch(/function loadFolder/);
  });
});
