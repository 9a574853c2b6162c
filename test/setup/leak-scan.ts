/**
 * Global setup/teardown: clears the capture folder before the run, and after the run scans
 * every captured line for every secret value any test registered (key secrets, tokens,
 * connection strings) and for raw Authorization header values. A hit fails the run.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { CAPTURE_DIR } from './paths';

const AUTH_HEADER = /\b(Basic|Bearer)\s+(?!\[REDACTED\])[A-Za-z0-9+/=._~-]{8,}/;

export function setup(): void {
  rmSync(CAPTURE_DIR, { recursive: true, force: true });
}

export function teardown(): void {
  if (!existsSync(CAPTURE_DIR)) return;
  const files = readdirSync(CAPTURE_DIR);
  const secrets = new Set<string>();
  for (const file of files.filter((f) => f.endsWith('.secrets.json'))) {
    for (const value of JSON.parse(
      readFileSync(path.join(CAPTURE_DIR, file), 'utf8'),
    ) as string[]) {
      secrets.add(value);
    }
  }
  const findings: string[] = [];
  let lines = 0;
  for (const file of files.filter((f) => f.endsWith('.log'))) {
    const text = readFileSync(path.join(CAPTURE_DIR, file), 'utf8');
    text.split('\n').forEach((line, index) => {
      lines += 1;
      for (const secret of secrets) {
        if (line.includes(secret)) {
          findings.push(`${file}:${index + 1}: a registered secret (${secret.length} chars)`);
        }
      }
      if (AUTH_HEADER.test(line))
        findings.push(`${file}:${index + 1}: an Authorization header value`);
    });
  }
  // A scan that saw nothing proves nothing: with secrets registered, some output must exist.
  if (lines === 0 && secrets.size > 0) {
    process.exitCode = 1;
    process.stderr.write(
      `secret leak scan FAILED: ${secrets.size} secrets registered but 0 captured lines to check\n`,
    );
    return;
  }
  if (findings.length > 0) {
    // vitest ignores errors thrown from a global teardown, so set the exit code ourselves.
    process.exitCode = 1;
    process.stderr.write(
      `secret leak scan FAILED: ${findings.length} finding(s)\n${findings.slice(0, 20).join('\n')}\n`,
    );
    return;
  }
  process.stdout.write(
    `secret leak scan: ${lines} captured lines checked against ${secrets.size} secrets, 0 found\n`,
  );
}
