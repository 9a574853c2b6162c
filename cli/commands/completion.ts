/**
 * `cloudops completion bash|zsh`: a completion script for commands, subcommands and flags, made
 * from the help registry (cli/help.ts), so completion offers exactly what `--help` documents. The
 * words are written into the script: pressing Tab never starts Node.
 */
import { flagSpellings, type CommandSpec } from '../args';
import { EXIT } from '../exit';
import { GLOBAL_FLAGS, type AnySpec, type CommandEntry, type CommandHelp } from '../help';
import type { Command } from '../io';

/** The words to offer, by position. */
export interface CompletionWords {
  commands: string[];
  /** Subcommands of each command that has them. */
  subcommands: Record<string, string[]>;
  /** Flags (with dashes) by `command` or `command subcommand`. */
  flags: Record<string, string[]>;
  /** Flags followed by a value: after them a file name is offered. */
  valueFlags: string[];
}

const GLOBAL = Object.keys(GLOBAL_FLAGS).map((f) => `--${f}`);
const SAFE = /^[a-z0-9][a-z0-9-]*$/;

function flagsOf(spec: AnySpec, valueFlags: Set<string>): string[] {
  const spellings = flagSpellings(spec);
  for (const s of spellings) if (s.takesValue) valueFlags.add(s.flag);
  return spellings.map((s) => s.flag);
}

/** Everything the registry documents, as completion words. */
export async function completionWords(commands: readonly CommandEntry[]): Promise<CompletionWords> {
  const words: CompletionWords = { commands: [], subcommands: {}, flags: {}, valueFlags: [] };
  const valueFlags = new Set(['--settings', '--env-file']);
  for (const entry of commands) {
    words.commands.push(entry.name);
    const help: CommandHelp = (await entry.help?.()) ?? {};
    if (help.spec) words.flags[entry.name] = flagsOf(help.spec, valueFlags);
    const subs = Object.entries(help.subcommands ?? {});
    if (subs.length > 0) words.subcommands[entry.name] = subs.map(([name]) => name);
    for (const [sub, spec] of subs) words.flags[`${entry.name} ${sub}`] = flagsOf(spec, valueFlags);
  }
  words.valueFlags = [...valueFlags];
  const all = [...words.commands, ...Object.values(words.subcommands).flat(), ...valueFlags];
  const unsafe = all.filter((w) => !SAFE.test(w.replace(/^--/, '')));
  if (unsafe.length > 0)
    throw new Error(`cannot complete names with shell syntax: ${unsafe.join(' ')}`);
  return words;
}

/** `case` arms: `  "key") var="words" ;;` in bash, `(key) var=(words) ;;` in zsh. */
function arms(entries: Record<string, string[]>, arm: (key: string, words: string) => string) {
  return Object.entries(entries).map(([key, list]) => arm(key, list.join(' ')));
}

export function bashScript(w: CompletionWords): string {
  const subs = arms(w.subcommands, (k, v) => `    ${k}) subs="${v}" ;;`);
  const flags = arms(w.flags, (k, v) => `    "${k}") flags="${v}" ;;`);
  return `# cloudops completion for bash. Load it with:  source <(cloudops completion bash)
_cloudops_takes_value() {
  case "$1" in ${w.valueFlags.join('|')}) return 0 ;; esac
  return 1
}
_cloudops() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]}
  local cmd=\${COMP_WORDS[1]} sub="" subs="" flags="" i
  COMPREPLY=()
  if _cloudops_takes_value "$prev"; then
    COMPREPLY=($(compgen -f -- "$cur"))
    return 0
  fi
  if [[ $COMP_CWORD -eq 1 ]]; then
    COMPREPLY=($(compgen -W "${w.commands.join(' ')} --help --version" -- "$cur"))
    return 0
  fi
  case "$cmd" in
${subs.join('\n')}
  esac
  if [[ -n $subs ]]; then
    for ((i = 2; i < COMP_CWORD; i++)); do
      if [[ \${COMP_WORDS[i]} != -* ]] && ! _cloudops_takes_value "\${COMP_WORDS[i-1]}"; then
        sub=\${COMP_WORDS[i]}
        break
      fi
    done
    if [[ -z $sub && $cur != -* ]]; then
      COMPREPLY=($(compgen -W "$subs" -- "$cur"))
      return 0
    fi
  fi
  case "$cmd\${sub:+ $sub}" in
${flags.join('\n')}
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$flags ${GLOBAL.join(' ')}" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
  return 0
}
complete -F _cloudops cloudops
`;
}

export function zshScript(w: CompletionWords): string {
  const subs = arms(w.subcommands, (k, v) => `    (${k}) subs=(${v}) ;;`);
  const flags = arms(w.flags, (k, v) => `    ("${k}") flags=(${v}) ;;`);
  return `#compdef cloudops
# cloudops completion for zsh. Load it (after compinit) with:  source <(cloudops completion zsh)
# or save it as _cloudops in a folder of your $fpath.
_cloudops_takes_value() {
  case "$1" in (${w.valueFlags.join('|')}) return 0 ;; esac
  return 1
}
_cloudops() {
  local cur=\${words[CURRENT]} prev=\${words[CURRENT-1]} cmd=\${words[2]} sub="" i
  local -a subs flags
  if _cloudops_takes_value "$prev"; then _files; return; fi
  if (( CURRENT == 2 )); then
    compadd -- ${w.commands.join(' ')} --help --version
    return
  fi
  case "$cmd" in
${subs.join('\n')}
  esac
  if (( \${#subs} )); then
    for (( i = 3; i < CURRENT; i++ )); do
      if [[ \${words[i]} != -* ]] && ! _cloudops_takes_value "\${words[i-1]}"; then
        sub=\${words[i]}
        break
      fi
    done
    if [[ -z $sub && $cur != -* ]]; then compadd -- $subs; return; fi
  fi
  case "$cmd\${sub:+ $sub}" in
${flags.join('\n')}
  esac
  if [[ $cur == -* ]]; then compadd -- $flags ${GLOBAL.join(' ')}; else _files; fi
}
if [[ \${funcstack[1]} == _cloudops ]]; then _cloudops "$@"; else compdef _cloudops cloudops; fi
`;
}

const shellSpec = (shell: string, rc: string): CommandSpec<Record<string, never>> => ({
  usage: `cloudops completion ${shell}`,
  summary: `Print the ${shell} completion script. To load it in every shell, add to ${rc}:\n  source <(cloudops completion ${shell})`,
  options: {},
  help: {},
});

export const completionHelp: CommandHelp = {
  subcommands: {
    bash: shellSpec('bash', '~/.bashrc'),
    zsh: shellSpec('zsh', '~/.zshrc (after compinit)'),
  },
};

export function completionCommand(commands: readonly CommandEntry[]): Command {
  return {
    name: 'completion',
    summary: 'print a shell completion script: completion bash | completion zsh',
    async run(argv, io) {
      const words = await completionWords(commands);
      io.out(argv[0] === 'zsh' ? zshScript(words) : bashScript(words));
      return EXIT.ok;
    },
  };
}
