/**
 * Fast checks of the docs (part of `npm test`): how commands are read out of the shell blocks and
 * planned (the slow run of each is `npm run test:docs`), and that the settings tables of
 * README.md list exactly the settings the code reads.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectionEnv } from '../../lib/config';
import { watchdogEnv } from '../../lib/pipes/config';
import { docCommands, extractCommands, planFor } from './doc-commands';

const ROOT = path.resolve(import.meta.dirname, '../..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

describe('reading the shell blocks', () => {
  it('takes ```sh, ```bash and ```shell blocks, joins continued lines, drops comments', () => {
    const markdown = [
      'text `npx not-this`',
      '```sh',
      '# a comment',
      'npx cloudops doctor   # trailing comment',
      '',
      'aws secretsmanager put-secret-value --secret-id x \\',
      "  --secret-string '{}'",
      '```',
      '```yaml',
      'name: not a command',
      '```',
      '  ```bash',
      '  npm test',
      '  ```',
      '```',
      'cloudops demo     a synopsis, not a block to run',
      '```',
    ].join('\n');
    expect(extractCommands(markdown, 'X.md')).toEqual([
      { file: 'X.md', line: 4, text: 'npx cloudops doctor   # trailing comment' },
      {
        file: 'X.md',
        line: 6,
        text: "aws secretsmanager put-secret-value --secret-id x --secret-string '{}'",
      },
      { file: 'X.md', line: 13, text: 'npm test' },
    ]);
  });

  it('refuses a block that is never closed', () => {
    expect(() => extractCommands('```sh\nnpm test\n', 'X.md')).toThrow(/never closed/);
  });
});

describe('planning a command', () => {
  it('runs a command as written, its /tmp/ paths in a folder of its own', () => {
    expect(planFor('npx cloudops doctor --settings /tmp/sandbox.env  # hi', '/x/y')).toEqual({
      kind: 'run',
      command: 'npx cloudops doctor --settings /x/y/sandbox.env',
    });
  });

  it('maps or skips only what the table names, each with a reason', () => {
    expect(planFor('npm ci && npm run demo', '/t')).toMatchObject({
      kind: 'run',
      command: 'npm run demo',
    });
    expect(planFor('npx cdk deploy -c cloudops:apiUrl=https://x', '/t')).toMatchObject({
      kind: 'run',
      command: 'CLOUDOPS_CDK_SKIP_BUNDLING=1 npx cdk synth --quiet',
    });
    expect(planFor('npx cloudops sandbox --write-env /tmp/s.env', '/t')).toMatchObject({
      kind: 'serve',
      command: 'npx cloudops sandbox --write-env /t/s.env',
    });
    for (const skipped of ['npm test', 'bash .ci/run', 'aws secretsmanager rotate-secret']) {
      const plan = planFor(skipped, '/t');
      expect(plan.kind, skipped).toBe('skip');
      expect(plan.kind === 'skip' && plan.why.length > 10, skipped).toBe(true);
    }
  });

  it('plans every command the docs hold, and runs most of them', () => {
    const commands = docCommands(ROOT);
    const plans = commands.map((c) => planFor(c.text, '/t'));
    expect(plans.filter((p) => p.kind !== 'skip').length).toBeGreaterThan(plans.length / 2);
    // Every documented CLI call runs: none is skipped.
    commands.forEach((c, i) => {
      if (/^npx cloudops\b/.test(c.text))
        expect(plans[i].kind, `${c.file}:${c.line}`).not.toBe('skip');
    });
  });
});

/** The `CLOUDOPS_*` names in the first column of README.md's tables. */
const tableNames = (prefix: string) =>
  new Set([...README.matchAll(new RegExp(`^\\| \`(${prefix}[A-Z_]+)\``, 'gm'))].map((m) => m[1]));

describe('README.md settings tables', () => {
  it('list every watchdog setting the code reads, and no other', () => {
    expect([...tableNames('CLOUDOPS_WATCHDOG_')].sort()).toEqual(
      Object.keys(watchdogEnv.shape).sort(),
    );
  });

  it('list every connection setting', () => {
    const documented = new Set([...README.matchAll(/`(CLOUDOPS_[A-Z_]+)`/g)].map((m) => m[1]));
    for (const name of Object.keys(connectionEnv.shape)) expect(documented, name).toContain(name);
  });
});
