import { describe, expect, it } from 'vitest';
import { importRuleViolations } from './import-rules';
import { compareWithRatchet } from './ratchet';
import { KNOWN_IMPORT_VIOLATIONS } from './known-violations';
import { importEdges, readSourceTree } from './source-tree';

/** Every folder of the repository that holds TypeScript. */
const CHECKED_FOLDERS = ['lib', 'functions', 'cdk', 'cli', 'sandbox', 'bench', 'test'];

describe('the layout import rules (capabilities apart, engines below them, no circle)', () => {
  const found = importRuleViolations(importEdges(readSourceTree(CHECKED_FOLDERS)));
  const report = compareWithRatchet(found, KNOWN_IMPORT_VIOLATIONS);

  it('finds no violation outside the ratchet list (fix the import; never list a new one)', () => {
    expect(report.unexpected).toEqual([]);
  });

  it('finds every listed violation still there (delete the lines of the fixed ones)', () => {
    expect(report.fixed).toEqual([]);
  });
});
