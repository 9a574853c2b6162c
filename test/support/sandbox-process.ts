/** `cloudops sandbox` as a child process, the way a user runs it. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { registerSecret } from '../../lib/redact';
import type { SandboxInfo } from '../../sandbox/index';

const BIN = path.resolve(import.meta.dirname, '../../cli/cloudops.js');

/**
 * Spawns `cloudops sandbox --port 0 --profile spec ...args` (a later --profile wins) and waits for the JSON contract on its first line.
 * The child is pushed to `children` at once, so the caller can kill it even if it never answers.
 */
export async function startSandboxProcess(
  args: string[],
  children: ChildProcess[],
): Promise<{ child: ChildProcess; info: SandboxInfo }> {
  const child = spawn(
    process.execPath,
    [BIN, 'sandbox', '--port', '0', '--profile', 'spec', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`sandbox exited early with ${code}`)));
  });
  const info = JSON.parse(first) as SandboxInfo;
  registerSecret(info.keySecret);
  registerSecret(info.observabilityToken);
  return { child, info };
}
