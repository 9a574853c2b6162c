/**
 * Where strict JSON syntax first fails. Node 20's JSON.parse messages carry no position
 * ("Unexpected token ']' ... is not valid JSON"), and the YAML parser accepts things JSON
 * does not (trailing commas), so a small recursive-descent scan finds the offset.
 */
export interface JsonSyntaxError {
  offset: number;
  message: string;
}

class JsonScanError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let i = 0;
  const fail = (message: string): never => {
    throw new JsonScanError(i, message);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const expect = (char: string) => {
    if (text[i] !== char) fail(`expected '${char}'${describeAt()}`);
    i++;
  };
  const describeAt = () => (i >= text.length ? ' but the file ended' : `, found '${text[i]}'`);
  const string = () => {
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
  };
  const value = (): void => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      ws();
      if (text[i] === '}') return void i++;
      for (;;) {
        ws();
        string();
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
        return expect('}');
      }
    }
    if (c === '[') {
      i++;
      ws();
      if (text[i] === ']') return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ',') {
          i++;
          ws();
          if (text[i] === ']') fail('trailing comma in array');
          continue;
        }
        return expect(']');
      }
    }
    if (c === '"') return string();
    const literal = /^(true|false|null|-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?)/.exec(text.slice(i));
    if (!literal) fail(`unexpected ${i >= text.length ? 'end of file' : `'${c}'`}`);
    i += literal![0].length;
  };
  try {
    value();
    ws();
    if (i < text.length) fail(`unexpected '${text[i]}' after the end of the value`);
    return undefined;
  } catch (error) {
    if (error instanceof JsonScanError) return { offset: error.offset, message: error.message };
    throw error;
  }
}
