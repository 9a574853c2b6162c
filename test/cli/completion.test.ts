/**
 * `cloudops completion bash|zsh`: the scripts complete commands, subcommands and flags from the
 * help registry. The bash script is sourced in a real bash and its function called as bash calls
 * it on Tab.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../cli/cli';
import { completionWords } from '../../cli/commands/completion';
import { runCapture } from '../support/cli';

let dir: string;
let bashFile: string;
let zsh: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'cloudops-completion-'));
  const bash = await runCapture(['completion', 'bash']);
  expect(bash.code).toBe(0);
  bashFile = path.join(dir, 'cloudops.bash');
  writeFileSync(bashFile, bash.stdout);
  const z = await runCapture(['completion', 'zsh']);
  expect(z.code).toBe(0);
  zsh = z.stdout;
  // Files for the "a value is a file name" case.
  mkdirSync(path.join(dir, 'work/dashboards'), { recursive: true });
  writeFileSync(path.join(dir, 'work/plan.json'), '{}');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What bash offers for the command line `line` with the cursor at its end. */
function complete(line: string): string[] {
  const words = line.split(' ');
  const script = [
    `source '${bashFile}'`,
    `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')})`,
    `COMP_CWORD=${words.length - 1}`,
    '_cloudops',
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const run = spawnSync('bash', ['--norc', '--noprofile', '-c', script], {
    cwd: path.join(dir, 'work'),
    encoding: 'utf8',
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return run.stdout.split('\n').filter(Boolean).sort();
}

describe('bash completion', () => {
  it('completes commands', () => {
    expect(complete('cloudops d')).toEqual(['dashboards', 'demo', 'doctor']);
    expect(complete('cloudops ')).toEqual(
      [...COMMANDS.map((c) => c.name), '--help', '--version'].sort(),
    );
  });

  it('completes subcommands, validate included', () => {
    expect(complete('cloudops dashboards ')).toEqual(
      ['apply', 'plan', 'pull', 'schema', 'validate'].sort(),
    );
    expect(complete('cloudops dashboards pl')).toEqual(['plan']);
    expect(complete('cloudops completion ')).toEqual(['bash', 'zsh']);
  });

  it("completes a subcommand's own flags and the global ones", () => {
    expect(complete('cloudops dashboards plan --de')).toEqual(['--debug', '--detailed-exitcode']);
    const pull = complete('cloudops dashboards pull --');
    expect(pull).toEqual(expect.arrayContaining(['--target', '--key', '--name', '--settings']));
    expect(pull).not.toContain('--auto-approve');
    expect(complete('cloudops sandbox --st')).toEqual(['--state', '--state-file']);
    expect(complete('cloudops doctor --')).toEqual(['--debug', '--help', '--json', '--settings']);
  });

  it('offers file names after a flag that takes a value, and for a plan file', () => {
    expect(complete('cloudops dashboards plan --dir da')).toEqual(['dashboards']);
    expect(complete('cloudops pipes check --settings pl')).toEqual(['plan.json']);
    expect(complete('cloudops dashboards apply pl')).toEqual(['plan.json']);
    // The subcommand is found after a flag's value.
    expect(complete('cloudops dashboards --dir dashboards plan --out')).toEqual(['--out']);
  });

  it('offers every flag each subcommand’s --help documents', async () => {
    const words = await completionWords(COMMANDS);
    for (const [key, flags] of Object.entries(words.flags)) {
      const offered = complete(`cloudops ${key} --`);
      const help = await runCapture([...key.split(' '), '--help']);
      for (const flag of flags) {
        expect(offered, key).toContain(flag);
        expect(help.stdout, `${key} --help documents ${flag}`).toContain(flag);
      }
    }
  });
});

describe('zsh completion', () => {
  it('holds the same words as the bash script, in zsh syntax', async () => {
    const words = await completionWords(COMMANDS);
    expect(zsh).toMatch(/^#compdef cloudops\n/);
    expect(zsh).toContain(`compadd -- ${words.commands.join(' ')} --help --version`);
    for (const [command, subs] of Object.entries(words.subcommands))
      expect(zsh).toContain(`(${command}) subs=(${subs.join(' ')}) ;;`);
    for (const [key, flags] of Object.entries(words.flags))
      expect(zsh).toContain(`("${key}") flags=(${flags.join(' ')}) ;;`);
  });

  // zsh is not installed on every machine; where it is, the script must at least parse.
  const hasZsh = spawnSync('zsh', ['--version']).status === 0;
  it.runIf(hasZsh)('parses in zsh', () => {
    const file = path.join(dir, '_cloudops');
    writeFileSync(file, zsh);
    const run = spawnSync('zsh', ['-n', file], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
