/**
 * The GitHub Actions example (examples/github-actions/dashboards.yml) does what it says: its
 * `npx cloudops dashboards` lines, run with only the workflow's env (secrets filled from a
 * sandbox), plan a pull request as a markdown comment with exit 2 for pending changes, then on
 * main save a plan and apply exactly that plan; a second PR plan is clean.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { dashboardsCommand } from '../../cli/commands/dashboards';
import { sandboxEnv } from '../../cli/connect';
import type { CliIO } from '../../cli/io';
import { createLogger } from '../../lib/log';
import { startSandbox, type Sandbox } from '../../sandbox/index';

const WORKFLOW = path.resolve(import.meta.dirname, '../../examples/github-actions/dashboards.yml');
const captured = createLogger({ level: 'debug', fields: { test: 'dashboards-example' } });

interface Workflow {
  env: Record<string, string>;
  jobs: Record<string, { steps: { run?: string }[] }>;
}

/** The `npx cloudops dashboards ...` lines of a job, in order. */
function commands(wf: Workflow, job: string): string[] {
  return wf.jobs[job].steps.flatMap((s) =>
    (s.run ?? '')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.startsWith('npx cloudops dashboards ')),
  );
}

let sb: Sandbox;
let root: string;

beforeAll(async () => {
  const fast = { limit: 100_000, windowMs: 1_000 };
  sb = await startSandbox({ port: 0, rateLimits: { management: fast, observability: fast } });
  root = await mkdtemp(path.join(tmpdir(), 'cloudops-gha-'));
  await mkdir(path.join(root, 'dashboards'));
  await writeFile(
    path.join(root, 'dashboards', 'checkout.yaml'),
    'name: Checkout\ntiles:\n  - { name: errors, x: 0, y: 0, w: 12, h: 4, markdown: errors }\n',
  );
});
afterAll(async () => {
  await sb.close();
  await rm(root, { recursive: true, force: true });
});

describe('examples/github-actions/dashboards.yml', () => {
  it('PR: markdown plan, exit 2 when pending; main: plan --out + apply FILE; then the PR plan is clean', async () => {
    const wf = parse(await readFile(WORKFLOW, 'utf8')) as Workflow;
    const secrets = sandboxEnv(sb.info);
    // The workflow's env, each `${{ secrets.X }}` from the sandbox, the owner from the repo name.
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(wf.env)) {
      const secret = /\$\{\{\s*secrets\.(\w+)\s*\}\}/.exec(value)?.[1];
      env[name] = secret ? secrets[secret] : value.includes('${{') ? 'example-repo' : value;
    }
    Object.assign(env, {
      CLOUDOPS_MANAGEMENT_RATE_LIMIT: '100000/1s',
      CLOUDOPS_OBSERVABILITY_RATE_LIMIT: '100000/1s',
    });

    const run = async (line: string) => {
      const [cmd, redirect] = line.split(' > ');
      const argv = cmd.split(/\s+/).slice(3);
      // Paths are relative to the checkout: here, the temp root.
      const rel = (i: number) => (argv[i] = path.join(root, argv[i]));
      argv.forEach((a, i) => {
        if (a === '--dir' || a === '--out') rel(i + 1);
      });
      if (argv[0] === 'apply' && argv[1] && !argv[1].startsWith('-')) rel(1);
      const out: string[] = [];
      const err: string[] = [];
      const io: CliIO = {
        out: (t) => void out.push(t),
        err: (t) => void err.push(t),
        env,
        isTTY: false,
      };
      const code = await dashboardsCommand.run(argv, io, new AbortController().signal);
      const stdout = out.join('\n');
      captured.debug('workflow step', { line, code, stdout, stderr: err.join('\n') });
      if (redirect) await writeFile(path.join(root, redirect.trim()), stdout);
      return { code, stdout, stderr: err.join('\n') };
    };

    const [prPlan] = commands(wf, 'plan');
    expect(prPlan).toContain('--format markdown --detailed-exitcode');
    const pr = await run(prPlan);
    expect(pr.code).toBe(2);
    const comment = await readFile(path.join(root, 'plan.md'), 'utf8');
    expect(comment).toContain('### cloudops dashboards plan');
    expect(comment).toContain('(owner `example-repo`)');
    expect(comment).toMatch(/```diff\n\+ \[\+\] create dashboard "Checkout"/);

    const main = commands(wf, 'apply');
    expect(main).toHaveLength(2);
    for (const line of main) expect((await run(line)).code).toBe(0);
    const made = sb.store.state.dashboards.filter((d) => d.name === 'Checkout');
    expect(made).toHaveLength(1);
    expect(made[0].tags).toContain('cloudops@example-repo');

    expect((await run(prPlan)).code).toBe(0);
    expect(await readFile(path.join(root, 'plan.md'), 'utf8')).toContain('No changes.');
  });
});
