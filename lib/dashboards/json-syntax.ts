import { CloudOpsError, type ErrorOptions } from '../errors';

/**
 * Where strict JSON syntax first fails. Node 20's JSON.parse messages carry no position
 * ("Unexpected token ']' ... is not valid JSON"), and the YAML parser accepts things JSON
 * does not (trailing commas), so a small recursive-descent scan finds the offset.
 */
export interface JsonSyntaxError {
  offset: number;
  message: string;
  /** True for a syntax error; false for a rule JSON.parse lets pass (duplicate key, depth). */
  json: boolean;
}

class JsonScanError extends CloudOpsError {
  override name = 'JsonScanError';
  readonly offset: number;
  readonly json: boolean;
  constructor(message: string, options: ErrorOptions & { offset: number; json?: boolean }) {
    super(message, options);
    this.offset = options.offset;
    this.json = options.json ?? true;
  }
}

/**
 * Also reports a duplicate key (JSON.parse silently keeps the last one) and nesting deeper
 * than `maxDepth` (so neither this scan nor any later walk can exhaust the stack).
 */
const LITERAL = /true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/y;

export function findJsonSyntaxError(
  text: string,
  maxDepth = Infinity,
): JsonSyntaxError | undefined {
  let i = 0;
  let depth = 0;
  const fail = (message: string): never => {
    throw new JsonScanError(message, { offset: i });
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const expect = (char: string) => {
    if (text[i] !== char) fail(`expected '${char}'${describeAt()}`);
    i++;
  };
  const describeAt = () => (i >= text.length ? ' but the file ended' : `, found '${text[i]}'`);
  const string = (): string => {
    const start = i + 1;
    expect('"');
    while (i < text.length && text[i] !== '"') {
      const c = text[i];
      if (c === '\\') {
        i++;
        if (text[i] === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) fail('bad \\u escape');
          i += 5;
        } else if ('"\\/bfnrt'.includes(text[i] ?? '')) i++;
        else fail('bad escape in string');
      } else if (c < ' ') fail('control character in string (unterminated string?)');
      else i++;
    }
    expect('"');
    return text.slice(start, i - 1);
  };
  const nest = () => {
    if (++depth > maxDepth)
      throw new JsonScanError(`nesting deeper than ${maxDepth} levels`, { offset: i, json: false });
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      nest();
      i++;
      ws();
      if (text[i] === '}') return void (i++, depth--);
      const keys = new Set<string>();
      for (;;) {
        ws();
        const at = i;
        const key = string();
        if (keys.has(key))
          throw new JsonScanError('duplicate key in object', { offset: at, json: false });
        keys.add(key);
        ws();
        expect(':');
        value();
        ws();
        if (text[i] === ',') {
          i++;
          ws();
          if (text[i] === '}') fail('trailing comma in object');
          continue;
        }
        expect('}');
        return void depth--;
      }
    }
    if (c === '[') {
      nest();
      i++;
      ws();
      if (text[i] === ']') return void (i++, depth--);
      for (;;) {
        value();
        ws();
        if (text[i] === ',') {
          i++;
          ws();
          if (text[i] === ']') fail('trailing comma in array');
          continue;
        }
        expect(']');
        return void depth--;
      }
    }
    if (c === '"') return void string();
    LITERAL.lastIndex = i;
    const literal = LITERAL.exec(text);
    if (!literal) fail(`unexpected ${i >= text.length ? 'end of file' : `'${c}'`}`);
    i += literal![0].length;
  };
  try {
    value();
    ws();
    if (i < text.length) fail(`unexpected '${text[i]}' after the end of the value`);
    return undefined;
  } catch (error) {
    if (error instanceof JsonScanError)
      return { offset: error.offset, message: error.message, json: error.json };
    throw error;
  }
}
