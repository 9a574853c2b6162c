/**
 * `cloudops dashboards validate` offline (no configuration, no network): problems are one line
 * each naming file:line and what is wrong.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCapture } from '../support/cli';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'cloudops-validate-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('cloudops dashboards validate', () => {
  it('two tiles with the same key in one dashboard: exit 1 naming file:line and the key', async () => {
    const dir = path.join(root, 'dup-key');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(dir);
    await writeFile(
      path.join(dir, 'checkout.yaml'),
      [
        'name: Checkout', //                                         1
        'tiles:', //                                                 2
        '  - { key: errs, name: errors, x: 0, y: 0, w: 6, h: 2, markdown: a }', // 3
        '  - key: lat', //                                           4
        '    name: latency', //                                      5
        '    x: 6', //                                               6
        '    y: 0', //                                               7
        '    w: 6', //                                               8
        '    h: 2', //                                               9
        '    markdown: b', //                                        10
        '  - name: errors again', //                                 11
        '    key: errs', //                                          12
        '    x: 12', //                                              13
        '    y: 0', //                                               14
        '    w: 6', //                                               15
        '    h: 2', //                                               16
        '    markdown: c', //                                        17
        '',
      ].join('\n'),
    );
    const run = await runCapture(['dashboards', 'validate', '--dir', dir]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(
      'checkout.yaml:12:10 tiles[2].key: duplicate tile key "errs" (also tiles[0])',
    );
    expect(run.stderr).toMatch(/^1 problem\(s\)/);
    expect(run.stdout).toBe('');
  });
});
