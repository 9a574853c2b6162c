/**
 * The summary lines of `cloudops dashboards plan` and `apply`, through the CLI against the
 * sandbox (`current` profile, real HTTP): every kind the run touches is counted by name (a run
 * that only makes a webhook says "1 webhook created", not "0 created"), and plan and apply say
 * it in the same words.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/log';
import { registerSecret } from '../../lib/redact';
import { startDashboardsSandbox, type DashboardsSandbox } from '../support/dashboards-sandbox';

const captured = createLogger({ level: 'debug', fields: { test: 'dashboards-apply-summary' } });
const HOOK_URL = 'https://hooks.example.test/summary/Z7xC4vB9nM2k';

let ds: DashboardsSandbox;
let dir: string;

beforeAll(async () => {
  registerSecret(HOOK_URL);
  ds = await startDashboardsSandbox('current', () => ({ CLOUDOPS_VAR_HOOK_URL: HOOK_URL }));
});
afterAll(async () => {
  await ds.sb.close();
});
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'cloudops-summary-'));
  return () => rm(dir, { recursive: true, force: true });
});

const cli = async (...argv: string[]) => {
  const run = await ds.cli(...argv);
  captured.debug('cli output', { argv: argv.join(' '), out: run.out, err: run.err });
  expect(run.out + run.err).not.toContain(HOOK_URL);
  return run;
};
/** Each test its own owner: the other test's files are not this one's to prune. */
const owned =
  (owner: string) =>
  (...argv: string[]) =>
    cli(...argv, '--owner', owner);
/** The last line printed: the summary. */
const summary = (out: string) => out.trimEnd().split('\n').at(-1);
const write = (file: string, lines: string[]) =>
  writeFile(path.join(dir, file), lines.join('\n') + '\n');

const webhook = (name: string, description = 'Pages on-call') => [
  'kind: webhook',
  `name: ${name}`,
  'service: generic',
  'url: ${HOOK_URL}',
  `description: ${description}`,
];
const search = (name: string, webhookName: string) => [
  'kind: savedSearch',
  `name: ${name}`,
  'source: Logs',
  "where: 'level:error'",
  'alerts:',
  '  - name: Errors keep coming',
  '    threshold: 10',
  '    thresholdType: above',
  '    interval: 5m',
  `    channel: { type: webhook, webhook: ${webhookName} }`,
];
const dashboard = (name: string) => [
  `name: ${name}`,
  'tiles:',
  '  - name: Rows',
  '    x: 0',
  '    y: 0',
  '    w: 8',
  '    h: 4',
  '    series:',
  "      - { type: number, source: Logs, aggFn: count, where: 'level:info', whereLanguage: lucene }",
];

describe('the plan and apply summary lines', () => {
  it('a folder with only a webhook: "1 webhook to create", then "1 webhook created", then unchanged', async () => {
    const run = owned('summary-only-webhook');
    await write('hook.yaml', webhook('Summary only hook'));

    const plan = await run('plan', '--dir', dir);
    expect(summary(plan.out)).toBe(
      'Plan: 1 webhook to create, 0 to update, 0 to delete, 0 unchanged.',
    );

    const applied = await run('apply', '--dir', dir, '--auto-approve');
    expect({ code: applied.code, err: applied.err }).toEqual({ code: 0, err: '' });
    expect(summary(applied.out)).toBe(
      'Apply complete: 1 webhook created, 0 updated, 0 deleted, 0 unchanged.',
    );

    const again = await run('apply', '--dir', dir, '--auto-approve');
    expect(summary(again.out)).toBe(
      'Apply complete: 0 created, 0 updated, 0 deleted, 1 webhook unchanged.',
    );
  });

  it('a mixed run counts each kind by name: create all, then update one kind and delete another', async () => {
    const run = owned('summary-mixed');
    await write('mixed-hook.yaml', webhook('Summary hook'));
    await write('mixed-search.yaml', search('Summary errors', 'Summary hook'));
    await write('mixed-board.yaml', dashboard('Summary board'));

    const plan = await run('plan', '--dir', dir);
    expect(summary(plan.out)).toBe(
      'Plan: 1 dashboard to create, 1 webhook to create, 1 saved search to create, ' +
        '1 alert to create, 0 to update, 0 to delete, 0 unchanged.',
    );
    const created = await run('apply', '--dir', dir, '--auto-approve');
    expect({ code: created.code, err: created.err }).toEqual({ code: 0, err: '' });
    expect(summary(created.out)).toBe(
      'Apply complete: 1 dashboard created, 1 webhook created, 1 saved search created, ' +
        '1 alert created, 0 updated, 0 deleted, 0 unchanged.',
    );

    // The webhook changes, the saved search (and its alert) goes; the dashboard stays.
    await write('mixed-hook.yaml', webhook('Summary hook', 'Pages the night shift'));
    await rm(path.join(dir, 'mixed-search.yaml'));
    const next = await run('plan', '--dir', dir, '--prune');
    expect(summary(next.out)).toBe(
      'Plan: 0 to create, 1 webhook to update, 1 saved search to delete, ' +
        '1 dashboard unchanged.',
    );
    const changed = await run('apply', '--dir', dir, '--prune', '--auto-approve');
    expect({ code: changed.code, err: changed.err }).toEqual({ code: 0, err: '' });
    expect(summary(changed.out)).toBe(
      'Apply complete: 0 created, 1 webhook updated, 1 saved search deleted, ' +
        '1 dashboard unchanged.',
    );
  });
});
