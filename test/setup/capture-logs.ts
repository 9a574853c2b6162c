/**
 * Runs before every test file: tees everything the code under test writes (structured log
 * lines, stdout, stderr) into a capture file, and at the end records the secret values that
 * were registered for redaction. The global leak scan (leak-scan.ts) then checks that no
 * captured line contains any of them.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { format } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { setLogSink } from '../../lib/log';
import { registeredSecrets } from '../../lib/redact';
import { CAPTURE_DIR } from './paths';

const id = `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;
const logFile = path.join(CAPTURE_DIR, `${id}.log`);
const secretsFile = path.join(CAPTURE_DIR, `${id}.secrets.json`);
mkdirSync(CAPTURE_DIR, { recursive: true });

function capture(text: string): void {
  const line = text.endsWith('\n') ? text : text + '\n';
  try {
    appendFileSync(logFile, line);
  } catch {
    // Another vitest run's global setup may have cleared the folder: recreate it.
    mkdirSync(CAPTURE_DIR, { recursive: true });
    appendFileSync(logFile, line);
  }
}

function tee(stream: NodeJS.WriteStream) {
  const original = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = (chunk: unknown, ...rest: unknown[]) => {
    capture(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return original(chunk, ...rest);
  };
}

/** vitest routes `console` through its own reporter, not the worker's stdout: tee it too. */
function teeConsole(): void {
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    const original = console[method].bind(console);
    console[method] = (...args: unknown[]) => {
      capture(format(...args));
      original(...args);
    };
  }
}

beforeAll(() => {
  // Structured logs go to the capture file only, keeping the test output readable.
  setLogSink(capture);
  tee(process.stdout);
  tee(process.stderr);
  teeConsole();
});

afterAll(() => {
  mkdirSync(CAPTURE_DIR, { recursive: true });
  writeFileSync(secretsFile, JSON.stringify(registeredSecrets()));
});
