import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../cli/cli';
import { closest } from '../../cli/suggest';
import { runCapture } from '../support/cli';

const USAGE = 64;

describe('cloudops usage', () => {
  it('lists every command in the top-level help', async () => {
    const run = await runCapture(['--help']);
    expect(run.code).toBe(0);
    for (const command of COMMANDS) expect(run.stdout).toContain(command.name);
  });

  it('exits 64 without a command, and on an unknown command, suggesting the nearest', async () => {
    expect((await runCapture([])).code).toBe(USAGE);
    const unknown = await runCapture(['frobnicate']);
    expect(unknown.code).toBe(USAGE);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
    const typo = await runCapture(['dashbaords']);
    expect(typo.code).toBe(USAGE);
    expect(typo.stderr).toMatch(
      /^cloudops: unknown command "dashbaords" \(did you mean "dashboards"\?\)$/m,
    );
  });

  it.each(COMMANDS.map((c) => c.name))('%s --help prints its usage and exits 0', async (name) => {
    const run = await runCapture([name, '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^usage: cloudops ${name}`));
  });

  it('rejects an unknown flag with exit 64, naming it and the flag meant', async () => {
    const run = await runCapture(['sandbox', '--prot', '1']);
    expect(run.code).toBe(USAGE);
    expect(run.stderr).toMatch(
      /^cloudops sandbox: unknown flag --prot \(did you mean --port\?\)$/m,
    );
    const plan = await runCapture([
      'dashboards',
      'plan',
      '--dir',
      'dashboards',
      '--detailed-exitcod',
    ]);
    expect(plan.code).toBe(USAGE);
    expect(plan.stderr).toContain(
      'unknown flag --detailed-exitcod (did you mean --detailed-exitcode?)',
    );
  });

  it('rejects a malformed number with exit 64', async () => {
    const run = await runCapture(['sandbox', '--port', 'eighty']);
    expect(run.code).toBe(USAGE);
    expect(run.stderr).toContain('--port expects a whole number');
  });

  it('names a flag given without its value', async () => {
    const run = await runCapture(['dashboards', 'validate', '--dir']);
    expect(run.code).toBe(USAGE);
    expect(run.stderr).toMatch(/^cloudops dashboards: --dir expects a value$/m);
  });
});

describe('help per subcommand', () => {
  it('dashboards plan --help shows plan and its own flags only', async () => {
    const run = await runCapture(['dashboards', 'plan', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^usage: cloudops dashboards plan --dir DIR/);
    expect(run.stdout).toContain('--detailed-exitcode');
    for (const other of ['--auto-approve', '--events', '--name'])
      expect(run.stdout).not.toContain(other);
    expect(run.stdout.split('\n').length).toBeLessThan(30);
  });

  it('each subcommand of dashboards has its own page', async () => {
    const pages = new Set<string>();
    for (const sub of ['validate', 'plan', 'apply', 'pull', 'schema']) {
      const run = await runCapture(['dashboards', sub, '--help']);
      expect(run.code, sub).toBe(0);
      expect(run.stdout, sub).toMatch(new RegExp(`^usage: cloudops dashboards ${sub}`));
      pages.add(run.stdout);
    }
    expect(pages.size).toBe(5);
    // `help` as a word does the same.
    const word = await runCapture(['help', 'dashboards', 'apply']);
    expect(word.stdout).toMatch(/^usage: cloudops dashboards apply --dir DIR/);
  });

  it('lists validate among the subcommands, in the top-level help and in the error', async () => {
    const top = await runCapture(['--help']);
    expect(top.stdout).toMatch(/dashboards .*validate/);
    const overview = await runCapture(['dashboards', '--help']);
    expect(overview.stdout).toMatch(/^ {2}validate +Check dashboard files offline$/m);
    const wrong = await runCapture(['dashboards', 'valdate', '--dir', 'dashboards']);
    expect(wrong.code).toBe(USAGE);
    expect(wrong.stderr).toContain(
      'unknown subcommand "valdate" (did you mean "validate"?); expected validate, plan, apply, pull or schema',
    );
  });

  it('a command that needs a subcommand, given none, names them and exits 64', async () => {
    for (const [name, subs] of [
      ['dashboards', 'validate, plan, apply, pull, schema'],
      ['pipes', 'check'],
      ['keys', 'list, audit, adopt, revoke, rotate'],
      ['alerts', 'provision'],
    ]) {
      const run = await runCapture([name]);
      expect(run.code, name).toBe(USAGE);
      expect(run.stderr, name).toContain(`cloudops ${name}: expected a subcommand: ${subs}`);
    }
  });

  it('finds the subcommand after flags that take values', async () => {
    const run = await runCapture(['dashboards', '--dir', 'dashboards', 'plan', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^usage: cloudops dashboards plan/);
  });
});

describe('one name per meaning, old spellings kept', () => {
  it('sandbox takes --state-file, and --state as its old name', async () => {
    const help = await runCapture(['sandbox', '--help']);
    expect(help.stdout).toMatch(/--state-file VALUE .* \(also --state\)$/m);
    // Both spellings reach the same check (a folder that does not exist).
    for (const flag of ['--state-file', '--state']) {
      const run = await runCapture(['sandbox', flag, '/no/such/dir/state.json']);
      expect(run.code, flag).toBe(USAGE);
      expect(run.stderr, flag).toMatch(
        /^cloudops sandbox: --state-file \/no\/such\/dir\/state\.json: folder/m,
      );
    }
  });

  it('dashboards pull documents --target (as plan and apply do), with --key as its old name', async () => {
    const help = await runCapture(['dashboards', 'pull', '--help']);
    expect(help.stdout).toMatch(/--target VALUE .*\(also --key\)$/m);
  });
});

describe('did you mean', () => {
  it('picks the nearest name, or none when nothing is close', () => {
    expect(closest('plna', ['validate', 'plan', 'apply'])).toBe('plan');
    expect(closest('aply', ['validate', 'plan', 'apply'])).toBe('apply');
    expect(closest('stat-file', ['state-file', 'json'])).toBe('state-file');
    expect(closest('val', ['validate', 'plan'])).toBe('validate');
    expect(closest('xyzzy', ['validate', 'plan', 'apply'])).toBeUndefined();
  });
});

describe('the command registry', () => {
  it.each(COMMANDS.map((c) => [c.name, c] as const))(
    '%s: the registry loads the command it names',
    async (_name, entry) => {
      const command = await entry.load();
      expect(command.name).toBe(entry.name);
    },
  );

  it.each(COMMANDS.map((c) => [c.name, c] as const))(
    '%s: the top-level summary names every subcommand',
    async (_name, entry) => {
      const help = (await entry.help?.()) ?? {};
      for (const sub of Object.keys(help.subcommands ?? {})) expect(entry.summary).toContain(sub);
    },
  );

  it('prints the package version for --version and -V', async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const run = await runCapture([flag]);
      expect(run.code).toBe(0);
      expect(run.stdout.trim()).toBe(version);
    }
  });
});
