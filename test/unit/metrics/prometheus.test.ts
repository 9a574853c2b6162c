import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parsePrometheusText, PrometheusParseError } from '../../../lib/metrics';
import { BROKEN_ACROSS_LINES, KAFKA_PIPE, OLDER_STYLE, RUNNING } from './samples';

/** The PrometheusParseError the text earns (fails the test when it parses). */
function refusal(text: string): PrometheusParseError {
  try {
    parsePrometheusText(text);
  } catch (error) {
    expect(error).toBeInstanceOf(PrometheusParseError);
    return error as PrometheusParseError;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be refused`);
}

describe('parsing the documented sample shapes', () => {
  it('reads every sample of a running service with its labels, and HELP and TYPE per family', () => {
    const { samples, families } = parsePrometheusText(RUNNING);
    expect(samples).toHaveLength(26);
    const sent = samples.find((s) => s.name === 'ClickPipes_SentEvents_Total');
    expect(sent).toMatchObject({
      value: 4411530,
      labels: { clickpipe_id: KAFKA_PIPE, clickpipe_name: 'orders kafka' },
    });
    expect(families.get('ClickPipes_SentEvents_Total')).toEqual({
      name: 'ClickPipes_SentEvents_Total',
      type: 'counter',
      help: 'Total number of records sent to ClickHouse',
    });
    expect(families.get('ClickHouse_ServiceInfo')?.type).toBe('untyped');
    // A metric nobody asked about is kept, not refused.
    expect(samples.some((s) => s.name === 'ClickHouseProfileEvents_Query')).toBe(true);
  });

  it('reads the older style: a blank line between HELP and TYPE, no newline at the end', () => {
    const { samples, families } = parsePrometheusText(OLDER_STYLE);
    expect(samples.map((s) => [s.name, s.line])).toEqual([
      ['ClickPipes_Info', 4],
      ['ClickPipes_SentEvents_Total', 10],
    ]);
    expect(families.get('ClickPipes_Info')?.type).toBe('gauge');
  });

  it('refuses the published sample that breaks one sample across two lines, naming line 4', () => {
    const error = refusal(BROKEN_ACROSS_LINES);
    expect(error.line).toBe(4);
    expect(error.message).toMatch(/^metrics text line 4, column \d+: expected "=" after label/);
  });
});

describe('the format', () => {
  it('unescapes label values (\\\\, \\" and \\n) and takes a trailing comma and blanks', () => {
    const [sample] = parsePrometheusText(
      'pipe_info{ name = "a \\"quoted\\" C:\\\\dir\\nnext" , other="x", } 1\n',
    ).samples;
    expect(sample.labels).toEqual({ name: 'a "quoted" C:\\dir\nnext', other: 'x' });
  });

  it('reads NaN, +Inf, -Inf, exponents and signs as numbers', () => {
    const values = parsePrometheusText('a NaN\nb +Inf\nc -Inf\nd 1.5e3\ne -0.25\nf Inf\n').samples;
    expect(values.map((s) => s.value)).toEqual([NaN, Infinity, -Infinity, 1500, -0.25, Infinity]);
  });

  it('keeps a timestamp in milliseconds, reads CRLF lines, skips comments and blank lines', () => {
    const { samples } = parsePrometheusText(
      '# a plain comment\r\n\r\n   \r\nrequests_total{code="200"} 1027 1395066363000\r\n',
    );
    expect(samples).toEqual([
      {
        name: 'requests_total',
        labels: { code: '200' },
        value: 1027,
        timestampMs: 1395066363000,
        line: 4,
      },
    ]);
  });

  it('unescapes HELP text and lets histogram samples follow their TYPE', () => {
    const { families, samples } = parsePrometheusText(
      '# HELP h Two\\nlines \\\\ here\n# TYPE h histogram\nh_bucket{le="+Inf"} 3\nh_sum 4\nh_count 3\n',
    );
    expect(families.get('h')).toEqual({ name: 'h', help: 'Two\nlines \\ here', type: 'histogram' });
    expect(samples).toHaveLength(3);
  });

  it('reads an empty answer as no samples', () => {
    expect(parsePrometheusText('').samples).toEqual([]);
    expect(parsePrometheusText('\n\n').samples).toEqual([]);
  });
});

describe('malformed lines are refused with the line and what was expected', () => {
  it.each([
    ['a{x="1"}\n', 1, 'a sample value'],
    ['ok 1\na{x="1" 3\n', 2, '"," or "}" after the value of label x'],
    ['a{x="\\q"} 1\n', 1, 'an escape \\\\, \\" or \\n in label x'],
    ['a{x="open} 1\n', 1, 'a closing double quote for label x'],
    ['a{x=1} 1\n', 1, 'a double-quoted value for label x'],
    ['a{x="1",x="2"} 1\n', 1, 'label x once'],
    ['a{1x="1"} 1\n', 1, 'a label name or "}"'],
    ['a abc\n', 1, 'a number, NaN, +Inf or -Inf'],
    ['a 0x10\n', 1, 'a number, NaN, +Inf or -Inf'],
    ['a 1 12.5\n', 1, 'a timestamp in milliseconds (an integer)'],
    ['a 1 2 3\n', 1, 'the end of the line'],
    ['this is not } a metric\n', 1, 'a number, NaN, +Inf or -Inf'],
    ['{x="1"} 1\n', 1, 'a metric name or a # comment'],
    ['# TYPE a countr\n', 1, 'counter, gauge, histogram, summary or untyped'],
    ['# TYPE a counter\n# TYPE a gauge\n', 2, 'one TYPE line for a, not a second'],
    ['# HELP a x\n# HELP a y\n', 2, 'one HELP line for a, not a second'],
    ['a 1\n# TYPE a gauge\n', 2, 'the TYPE line of a before its samples'],
    ['# TYPE\n', 1, 'a blank after TYPE'],
    ['# HELP a bad \\t escape\n', 1, 'an escape \\\\ or \\n in the help text'],
  ])('%j: line %i expects %s', (text, line, expected) => {
    const error = refusal(text);
    expect(error.line).toBe(line);
    expect(error.expected).toBe(expected);
    expect(error.message).toContain(`line ${line}, column `);
    expect(error.message).toContain(`expected ${expected}`);
  });

  it('refuses an HTML error page and a JSON envelope at line 1 instead of reading "no samples"', () => {
    expect(refusal('<html><body>Cannot GET</body></html>').line).toBe(1);
    expect(refusal('{"status":404,"error":"NOT_FOUND: service not found"}').line).toBe(1);
  });

  it('names the column and the character found', () => {
    expect(refusal('ok{a="1"} 1\nbad{a="1";b="2"} 1').message).toBe(
      'metrics text line 2, column 10: expected "," or "}" after the value of label a, found ";"',
    );
  });

  it('never fails with anything but a PrometheusParseError, whatever the text', () => {
    const alphabet = fc.constantFrom(...'a_{}=",\\ \t\n#HELPTYPE1.e+-NaInf\r'.split(''));
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 60 }), (chars) => {
        try {
          parsePrometheusText(chars.join(''));
        } catch (error) {
          expect(error).toBeInstanceOf(PrometheusParseError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
