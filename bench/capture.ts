/**
 * Everything the bench and its child processes print, plus what the functions emitted
 * (EventBridge entries, SNS messages, handler results), for the secret-leak scan.
 */
const AUTH_HEADER = /\b(Basic|Bearer)\s+(?!\[REDACTED\])[A-Za-z0-9+/=._~-]{8,}/;

export class Capture {
  private readonly chunks: { source: string; text: string }[] = [];

  add(source: string, text: string): void {
    if (text) this.chunks.push({ source, text });
  }

  /** Lines captured so far. */
  lines(): number {
    return this.chunks.reduce((n, c) => n + c.text.split('\n').length, 0);
  }

  /**
   * Every place a secret (or a raw Authorization header value) occurs; names the source and
   * the secret's length only, never the value.
   */
  scan(secrets: Iterable<string>): string[] {
    const values = [...new Set(secrets)].filter((s) => s.length >= 6);
    const findings: string[] = [];
    for (const { source, text } of this.chunks) {
      for (const secret of values) {
        if (text.includes(secret))
          findings.push(`${source}: a secret in use (${secret.length} chars)`);
      }
      if (AUTH_HEADER.test(text)) findings.push(`${source}: an Authorization header value`);
    }
    return findings;
  }
}

/** Tees this process's stdout/stderr writes into the capture (the table itself included). */
export function captureProcessOutput(capture: Capture): void {
  for (const [name, stream] of [
    ['bench stdout', process.stdout],
    ['bench stderr', process.stderr],
  ] as const) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = (chunk: unknown, ...rest: unknown[]) => {
      capture.add(
        name,
        typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString(),
      );
      return write(chunk, ...rest);
    };
  }
}
