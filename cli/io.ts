/** Where a command writes: injectable so tests run commands in-process and read the output. */
export interface CliIO {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
  /** True when stdout is a terminal (progress and colour only then). */
  isTTY: boolean;
  /** True when stdin is a terminal; default: the process's stdin. */
  stdinIsTTY?: boolean;
}

export const processIO: CliIO = {
  out: (text) => void process.stdout.write(text.endsWith('\n') ? text : text + '\n'),
  err: (text) => void process.stderr.write(text.endsWith('\n') ? text : text + '\n'),
  env: process.env,
  isTTY: Boolean(process.stdout.isTTY),
};

/** A command: parses its own argv, returns the exit code. */
export interface Command {
  name: string;
  summary: string;
  run(argv: string[], io: CliIO, signal: AbortSignal): Promise<number>;
}

/**
 * Before a command reads stdin: on a terminal nothing is coming unless the person types it, so
 * say what is being read and how to end it (or avoid it), instead of seeming to hang.
 */
export function noteStdinFromTerminal(io: CliIO, what: string, instead: string): void {
  if (io.stdinIsTTY ?? process.stdin.isTTY) {
    io.err(`reading ${what} from the terminal: paste it and end with Ctrl-D, or give ${instead}`);
  }
}
