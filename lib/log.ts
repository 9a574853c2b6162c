/**
 * Structured JSON logging. Lines carry `timestamp` (RFC 3339) and `level`, the keys Lambda's
 * JSON log format reads for log-level filtering, plus the fields of the current log context
 * (the Lambda request id, the message or event id), so every line of one invocation can be
 * found from any one of them.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { redact, redactText } from './redact';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

export type LogFields = Record<string, unknown>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

/** Where formatted (already redacted) JSON lines go. Tests swap it to capture everything. */
export type LogSink = (line: string) => void;

const defaultSink: LogSink = (line) => {
  process.stderr.write(line + '\n');
};
let globalSink: LogSink = defaultSink;

/** Replace the process-wide sink (tests, CLI quiet mode). Returns the previous one. */
export function setLogSink(sink: LogSink): LogSink {
  const previous = globalSink;
  globalSink = sink;
  return previous;
}

const logContext = new AsyncLocalStorage<LogFields>();

/**
 * Run `fn` with `fields` on every line any logger writes inside it (async work included).
 * Nested contexts add to the outer one: the handler sets the request id, a batch loop the
 * message id of the record at hand.
 */
export function withLogContext<T>(fields: LogFields, fn: () => T): T {
  return logContext.run({ ...logContext.getStore(), ...fields }, fn);
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Fields on every line (e.g. `{ service: 'pipe-watchdog' }`). */
  fields?: LogFields;
  /** Default: the process-wide sink. */
  sink?: LogSink;
}

/** Structured JSON logger; every line is redacted before it reaches the sink. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = ORDER[options.level ?? 'info'];
  const base = options.fields ?? {};
  const write = (level: Exclude<LogLevel, 'silent'>, message: string, fields?: LogFields) => {
    if (ORDER[level] < threshold) return;
    const entry: LogFields = {
      timestamp: new Date().toISOString(),
      level,
      message: redactText(message),
    };
    // Field names are checked too (a `token` field is masked whatever its value).
    Object.assign(entry, redact({ ...logContext.getStore(), ...base, ...fields }));
    (options.sink ?? globalSink)(JSON.stringify(entry));
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => createLogger({ ...options, fields: { ...base, ...fields } }),
  };
}

/** A logger that drops everything (for callers that did not inject one). */
export const silentLogger: Logger = createLogger({ level: 'silent' });
