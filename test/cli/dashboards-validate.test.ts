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

  it('secret references are checked offline for their form, with no settings and no request', async () => {
    const dir = path.join(root, 'secret-refs');
    const { mkdir } = await import('node:fs/promises');
    await mkdir(dir);
    await writeFile(
      path.join(dir, 'hook.yaml'),
      [
        'kind: webhook', //                                          1
        'name: Pager', //                                            2
        'service: generic', //                                       3
        "url: { secret: 'prod pager' }", //                          4
        'headers:', //                                               5
        '  X-Token: { key: token }', //                              6
        "  X-Arn: { secret: 'arn:aws:secretsmanager:eu-west-1:42:secret:x' }", // 7
        '  X-Good: { secret: prod/pager-token, key: token }', //     8
        '',
      ].join('\n'),
    );
    // No CLOUDOPS_* settings and no Secrets Manager endpoint: a read would fail differently.
    const run = await runCapture(['dashboards', 'validate', '--dir', dir]);
    expect(run.code).toBe(1);
    expect(
      run.stderr
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l.startsWith('hook.yaml')),
    ).toEqual([
      'hook.yaml:4:6 url: secret "prod pager" is not a secret name (ASCII letters, digits and /_+=.@- only) or ARN',
      'hook.yaml:6:12 headers.X-Token: `key` names a field of a JSON secret: add `secret: <id or ARN>` beside it',
      'hook.yaml:7:10 headers.X-Arn: secret "arn:aws:secretsmanager:eu-west-1:42:secret:x" is not a Secrets Manager ARN (arn:aws:secretsmanager:<region>:<12-digit account>:secret:<name>)',
    ]);
  });
});
