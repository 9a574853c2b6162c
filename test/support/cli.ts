/** The CLI run in-process with its output captured, for the CLI tests. */
import { runCli } from '../../cli/cli';
import type { CliIO } from '../../cli/io';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with captured output. */
export async function runCapture(
  argv: string[],
  options: { env?: Record<string, string | undefined>; signal?: AbortSignal } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = {
    out: (text) => void (stdout += text.endsWith('\n') ? text : text + '\n'),
    err: (text) => void (stderr += text.endsWith('\n') ? text : text + '\n'),
    env: options.env ?? {},
    isTTY: false,
  };
  const code = await runCli(argv, io, options.signal);
  return { code, stdout, stderr };
}
