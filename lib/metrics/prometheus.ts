/**
 * A small strict parser of the Prometheus text format (0.0.4): `# HELP`, `# TYPE`, other comments,
 * blank lines, and samples `name{label="value",...} value [timestamp]`.
 *
 * Written here rather than taken from npm: the parsers there read an HTML error page as an empty
 * answer (the worst mistake for a watchdog: "no pipes") or accept garbage lines as samples, give no
 * line numbers, and ship no types. This one refuses a malformed line with a PrometheusParseError
 * naming the line and what was expected, and never judges metric names: unknown metrics are kept.
 */
import { ValidationError, type ErrorOptions } from '../errors';

export interface PrometheusSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  /** May be NaN or ±Infinity, as the format allows. */
  readonly value: number;
  /** Milliseconds since the epoch, when the line carried one. */
  readonly timestampMs?: number;
  /** 1-based line of the sample in the text. */
  readonly line: number;
}

export interface MetricFamily {
  readonly name: string;
  /** counter | gauge | histogram | summary | untyped (and OpenMetrics' words); absent without TYPE. */
  type?: string;
  help?: string;
}

export interface Exposition {
  readonly samples: readonly PrometheusSample[];
  /** Families that had a HELP or TYPE line, by name. */
  readonly families: ReadonlyMap<string, MetricFamily>;
}

/** A line of metrics text that is not in the format; names the line and what was expected. */
export class PrometheusParseError extends ValidationError {
  override name = 'PrometheusParseError';
  /** 1-based line number. */
  readonly line: number;
  /** What the parser expected where the line went wrong. */
  readonly expected: string;

  constructor(message: string, options: ErrorOptions & { line: number; expected: string }) {
    super(message, { ...options, source: 'metrics text', issues: [message] });
    this.line = options.line;
    this.expected = options.expected;
  }
}

const METRIC_TYPES = new Set([
  'counter',
  'gauge',
  'histogram',
  'summary',
  'untyped',
  // OpenMetrics' words, which some exporters write in the text format too.
  'unknown',
  'info',
  'stateset',
  'gaugehistogram',
]);
/** Sample names a histogram or summary family `x` owns besides `x`. */
const FAMILY_SUFFIXES = ['_bucket', '_sum', '_count'];
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const INFINITY = /^([+-]?)inf(inity)?$/i;
const TIMESTAMP = /^-?\d+$/;

/** Parses metrics text; throws PrometheusParseError at the first line not in the format. */
export function parsePrometheusText(text: string): Exposition {
  const samples: PrometheusSample[] = [];
  const families = new Map<string, MetricFamily>();
  const sampled = new Set<string>();
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const cursor = new LineCursor(raw.endsWith('\r') ? raw.slice(0, -1) : raw, index + 1);
    cursor.skipBlanks();
    if (cursor.atEnd()) return;
    if (cursor.peek() === '#') return readComment(cursor, families, sampled);
    const sample = readSample(cursor);
    sampled.add(sample.name);
    samples.push(sample);
  });
  return { samples, families };
}

/** `# HELP name text`, `# TYPE name type`, or any other comment (ignored). */
function readComment(
  cursor: LineCursor,
  families: Map<string, MetricFamily>,
  sampled: ReadonlySet<string>,
): void {
  cursor.take(1);
  cursor.skipBlanks();
  const keyword = cursor.match(/^\S+/) ?? '';
  if (keyword !== 'HELP' && keyword !== 'TYPE') return;
  cursor.requireBlank(`a blank after ${keyword}`);
  const name = cursor.require(METRIC_NAME, 'a metric name');
  const family = families.get(name) ?? { name };
  families.set(name, family);
  if (keyword === 'HELP') {
    if (family.help !== undefined) cursor.fail(`one HELP line for ${name}, not a second`);
    family.help = cursor.atEnd() ? '' : readHelpText(cursor);
    return;
  }
  if (family.type !== undefined) cursor.fail(`one TYPE line for ${name}, not a second`);
  cursor.requireBlank('a blank before the type');
  const type = cursor.require(/^\S+/, 'a metric type');
  if (!METRIC_TYPES.has(type)) cursor.fail('counter, gauge, histogram, summary or untyped', type);
  cursor.requireEnd();
  const owned = type === 'histogram' || type === 'summary' ? FAMILY_SUFFIXES : [];
  if ([name, ...owned.map((suffix) => name + suffix)].some((n) => sampled.has(n)))
    cursor.fail(`the TYPE line of ${name} before its samples`);
  family.type = type;
}

/** The rest of a HELP line, with its `\\` and `\n` escapes. */
function readHelpText(cursor: LineCursor): string {
  cursor.requireBlank('a blank before the help text');
  let help = '';
  while (!cursor.atEnd()) {
    const char = cursor.take(1);
    if (char !== '\\') {
      help += char;
      continue;
    }
    const escaped = cursor.take(1);
    if (escaped === '\\') help += '\\';
    else if (escaped === 'n') help += '\n';
    else cursor.fail('an escape \\\\ or \\n in the help text', `\\${escaped}`, -2);
  }
  return help;
}

function readSample(cursor: LineCursor): PrometheusSample {
  const name = cursor.require(METRIC_NAME, 'a metric name or a # comment');
  cursor.skipBlanks();
  const labels = cursor.peek() === '{' ? readLabels(cursor) : {};
  cursor.skipBlanks();
  const valueText = cursor.require(/^\S+/, 'a sample value');
  const value = parseValue(valueText);
  if (value === undefined) cursor.fail('a number, NaN, +Inf or -Inf', valueText, -valueText.length);
  let timestampMs: number | undefined;
  if (cursor.skipBlanks() && !cursor.atEnd()) {
    const stamp = cursor.require(/^\S+/, 'a timestamp');
    timestampMs = TIMESTAMP.test(stamp) ? Number(stamp) : NaN;
    if (!Number.isSafeInteger(timestampMs))
      cursor.fail('a timestamp in milliseconds (an integer)', stamp, -stamp.length);
  }
  cursor.requireEnd();
  return {
    name,
    labels,
    value,
    ...(timestampMs !== undefined ? { timestampMs } : {}),
    line: cursor.line,
  };
}

/** `{name="value",...}` (a trailing comma is allowed), each label name once. */
function readLabels(cursor: LineCursor): Record<string, string> {
  const labels: Record<string, string> = {};
  cursor.take(1);
  for (;;) {
    cursor.skipBlanks();
    if (cursor.peek() === '}') break;
    const name = cursor.require(LABEL_NAME, 'a label name or "}"');
    if (Object.hasOwn(labels, name)) cursor.fail(`label ${name} once`, name, -name.length);
    cursor.skipBlanks();
    cursor.expect('=', `"=" after label ${name}`);
    cursor.skipBlanks();
    labels[name] = readLabelValue(cursor, name);
    cursor.skipBlanks();
    if (cursor.peek() === ',') cursor.take(1);
    else if (cursor.peek() !== '}') cursor.fail(`"," or "}" after the value of label ${name}`);
  }
  cursor.take(1);
  return labels;
}

/** A double-quoted label value with the escapes `\\`, `\"` and `\n`. */
function readLabelValue(cursor: LineCursor, label: string): string {
  cursor.expect('"', `a double-quoted value for label ${label}`);
  let value = '';
  for (;;) {
    if (cursor.atEnd()) cursor.fail(`a closing double quote for label ${label}`);
    const char = cursor.take(1);
    if (char === '"') return value;
    if (char !== '\\') {
      value += char;
      continue;
    }
    const escaped = cursor.take(1);
    if (escaped === '\\' || escaped === '"') value += escaped;
    else if (escaped === 'n') value += '\n';
    else cursor.fail(`an escape \\\\, \\" or \\n in label ${label}`, `\\${escaped}`, -2);
  }
}

function parseValue(text: string): number | undefined {
  if (DECIMAL.test(text)) return Number(text);
  if (/^nan$/i.test(text)) return NaN;
  const infinity = INFINITY.exec(text);
  if (infinity) return infinity[1] === '-' ? -Infinity : Infinity;
  return undefined;
}

/** One line, read left to right; every failure names the line, the column and what was expected. */
class LineCursor {
  private position = 0;
  constructor(
    private readonly text: string,
    readonly line: number,
  ) {}

  atEnd(): boolean {
    return this.position >= this.text.length;
  }

  peek(): string {
    return this.text.charAt(this.position);
  }

  take(count: number): string {
    const taken = this.text.slice(this.position, this.position + count);
    this.position += count;
    return taken;
  }

  /** Skips blanks and tabs; true when there were any. */
  skipBlanks(): boolean {
    const start = this.position;
    while (this.peek() === ' ' || this.peek() === '\t') this.position += 1;
    return this.position > start;
  }

  match(pattern: RegExp): string | undefined {
    const found = pattern.exec(this.text.slice(this.position))?.[0];
    if (found) this.position += found.length;
    return found;
  }

  require(pattern: RegExp, expected: string): string {
    return this.match(pattern) ?? this.fail(expected);
  }

  expect(char: string, expected: string): void {
    if (this.peek() !== char) this.fail(expected);
    this.position += 1;
  }

  requireBlank(expected: string): void {
    if (!this.skipBlanks()) this.fail(expected);
  }

  requireEnd(): void {
    this.skipBlanks();
    if (!this.atEnd()) this.fail('the end of the line');
  }

  /** Throws; `found` defaults to the next character, `back` moves the reported column left. */
  fail(expected: string, found?: string, back = 0): never {
    const column = this.position + back + 1;
    const what = found ?? (this.atEnd() ? 'the end of the line' : this.peek());
    const shown = what === 'the end of the line' ? what : JSON.stringify(what.slice(0, 40));
    throw new PrometheusParseError(
      `metrics text line ${this.line}, column ${column}: expected ${expected}, found ${shown}`,
      { line: this.line, expected },
    );
  }
}
