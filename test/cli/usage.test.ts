import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Command } from '../../cli/io';
import { runCapture } from '../support/cli';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The top-level commands the README and DESIGN document. */
const COMMANDS = ['demo', 'sandbox', 'dashboards', 'alerts', 'pipes', 'keys'];

describe('cloudops usage', () => {
  it('lists every command in the top-level help', async () => {
    const run = await runCapture(['--help']);
    expect(run.code).toBe(0);
    for (const name of COMMANDS) expect(run.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
  });

  it('exits 2 without a command, and on an unknown command', async () => {
    expect((await runCapture([])).code).toBe(2);
    const unknown = await runCapture(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
  });

  it.each(COMMANDS)('%s --help prints its usage and exits 0', async (name) => {
    const run = await runCapture([name, '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^usage: cloudops ${name}`));
  });

  it('rejects an unknown flag with exit 2, naming it', async () => {
    const run = await runCapture(['sandbox', '--prot', '1']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--prot');
  });

  it('rejects a malformed number with exit 2', async () => {
    const run = await runCapture(['sandbox', '--port', 'eighty']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--port expects a whole number');
  });
});

describe('the command registry', () => {
  it.each(COMMANDS)('%s: the summary in `--help` is the command’s own', async (name) => {
    const module = (await import(`../../cli/commands/${name}.ts`)) as Record<string, Command>;
    const command = module[`${name}Command`];
    expect(command.name).toBe(name);
    const help = (await runCapture(['--help'])).stdout;
    expect(help).toMatch(new RegExp(`^  ${name} +${escapeRegExp(command.summary)}$`, 'm'));
  });

  it('prints the package version for --version and -V', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const run = await runCapture([flag]);
      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe(version);
    }
  });
});
