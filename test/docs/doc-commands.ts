/**
 * The commands the docs show, and how the docs test runs each one: as written, unless the table
 * below says otherwise and why. A new ```sh block needs nothing here; only a command that cannot
 * run as written in a test (it needs an AWS account, it would recurse, it serves forever) needs
 * a row.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The documents whose shell blocks are executable. */
export const DOCS = ['README.md', 'cdk/README.md', 'dashboards/README.md', 'sandbox/README.md'];

export interface DocCommand {
  file: string;
  /** 1-based line of the command's first line. */
  line: number;
  /** As written (continuation lines joined, comments kept: bash drops them). */
  text: string;
}

const FENCE_OPEN = /^\s*```(sh|bash|shell)\s*$/;
const FENCE_CLOSE = /^\s*```\s*$/;

/** Every command of every ```sh / ```bash / ```shell block, in document order. */
export function extractCommands(markdown: string, file: string): DocCommand[] {
  const commands: DocCommand[] = [];
  const lines = markdown.split('\n');
  let inBlock = false;
  let pending: DocCommand | undefined;
  lines.forEach((raw, index) => {
    if (!inBlock) {
      inBlock = FENCE_OPEN.test(raw);
      return;
    }
    if (FENCE_CLOSE.test(raw)) {
      inBlock = false;
      if (pending) throw new Error(`${file}:${pending.line}: the block ends inside a command`);
      return;
    }
    const line = raw.trim();
    if (!pending && (line === '' || line.startsWith('#'))) return;
    const continued = line.endsWith('\\');
    const part = continued ? line.slice(0, -1).trimEnd() : line;
    pending = pending
      ? { ...pending, text: `${pending.text} ${part}` }
      : { file, line: index + 1, text: part };
    if (!continued) {
      commands.push(pending);
      pending = undefined;
    }
  });
  if (inBlock) throw new Error(`${file}: a code block is never closed`);
  return commands;
}

export function docCommands(root: string): DocCommand[] {
  return DOCS.flatMap((file) => extractCommands(readFileSync(path.join(root, file), 'utf8'), file));
}

/** How one command runs: as written, rewritten (with the reason), in the background, or not at all. */
export type Plan =
  | { kind: 'run'; command: string; why?: string }
  | { kind: 'serve'; command: string; why: string }
  | { kind: 'skip'; why: string };

interface Rule {
  match: RegExp;
  plan: (command: string) => Plan;
}

const skip = (why: string) => () => ({ kind: 'skip', why }) as const;

/**
 * The exceptions, first match wins (matched against the command without its comment). Every
 * other command runs exactly as written.
 */
const RULES: Rule[] = [
  // A fresh clone in CI has run `npm ci` already; here it would delete the node_modules the test
  // itself runs from.
  { match: /^npm ci$/, plan: skip('npm ci already ran on this clone (CI starts with it)') },
  {
    match: /^npm ci && /,
    plan: (c) => ({
      kind: 'run',
      command: c.replace(/^npm ci && /, ''),
      why: 'without `npm ci &&`: it already ran on this clone',
    }),
  },
  // The suites and CI itself: each is its own CI step, and running them here would recurse.
  { match: /^npm test\b/, plan: skip('the test suite: CI runs it as its own step') },
  { match: /^npm run test:docs\b/, plan: skip('this very test') },
  { match: /^(FAULT_SEED=\S+ )?npm run test:faults\b/, plan: skip('CI runs it, once per seed') },
  { match: /^bash \.ci\/run\b/, plan: skip('CI itself, which runs this test') },
  {
    match: /^npm run (typecheck|lint|format:check)\b/,
    plan: skip('CI runs type check, lint and format check as its own steps'),
  },
  {
    match: /^npm run bench\b/,
    plan: skip('figures need an idle machine (bench/README.md says how they are measured)'),
  },
  // Anything that needs an AWS account or the AWS CLI.
  { match: /^aws /, plan: skip('needs the AWS CLI and a deployed stack') },
  // Decoding a deployed function's stack trace: its package comes from AWS.
  {
    match:
      /^(curl .*aws lambda get-function|unzip -o fn\.zip|npx tsx cdk\/decode-stack-trace\.ts fn )/,
    plan: skip(
      "needs a deployed function's package and trace (test/cdk/decode-stack-trace.test.ts decodes a synthesized bundle's trace)",
    ),
  },
  { match: /^npx cdk bootstrap\b/, plan: skip('needs an AWS account') },
  {
    match: /^npx cdk (deploy|diff)\b/,
    plan: () => ({
      kind: 'run',
      command: 'CLOUDOPS_CDK_SKIP_BUNDLING=1 npx cdk synth --quiet',
      why: 'needs an AWS account: synthesizes what it would deploy (the as-written synth bundles)',
    }),
  },
  // Serves until stopped (the docs say: in a second terminal).
  {
    match: /^npx cloudops sandbox\b/,
    plan: (c) => ({
      kind: 'serve',
      command: c,
      why: 'serves until stopped: runs in the background, stopped after the last command of its file',
    }),
  },
];

/** The command without a trailing `# comment` (naively: none of ours quotes a `#`). */
export const withoutComment = (text: string) => text.replace(/\s+#.*$/, '').trim();

/**
 * How to run `text`. `tmp` replaces `/tmp/` in every command, so parallel runs never share a file
 * (the only rewrite applied to every command).
 */
export function planFor(text: string, tmp: string): Plan {
  const command = withoutComment(text).replaceAll('/tmp/', `${tmp}/`);
  const rule = RULES.find((r) => r.match.test(command));
  return rule ? rule.plan(command) : { kind: 'run', command };
}
