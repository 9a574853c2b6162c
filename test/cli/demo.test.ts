import { describe, expect, it } from 'vitest';
import { runCapture } from '../support/cli';

describe('cloudops demo', () => {
  it('runs the whole tour against an in-process sandbox and exits 0', async () => {
    const run = await runCapture(['demo']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('✓ the service answered without a key secret');
    expect(run.stdout).toMatch(/requests: 429 → 200/);
    expect(run.stdout).toMatch(/tile ids kept/);
    expect(run.stdout).toMatch(/^Done: \d+ requests to the sandbox/m);
  });
});
