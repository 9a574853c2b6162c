import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import {
  coercedNumber,
  isoDatetime,
  safeInteger,
  stringRecord,
  url,
  uuidString,
  withFallback,
} from '../../../lib/schemas/builders';
import { formatIssues } from '../../../lib/format-issues';

/** What a user sees of a parse: the value, or each issue's path, code and message. */
function outcome(schema: z.ZodMiniType, input: unknown) {
  const result = schema.safeParse(input);
  return result.success
    ? { data: result.data }
    : { issues: result.error.issues.map(({ path, code, message }) => ({ path, code, message })) };
}

/** The lines a user reads (lib/format-issues.ts sets zod's English messages), or the value. */
function shown(schema: z.ZodMiniType, input: unknown) {
  const result = schema.safeParse(input);
  return result.success ? { data: result.data } : { lines: formatIssues(result.error.issues) };
}

const URL_INPUTS = [
  'https://api.example.com',
  'https://api.example.com/v1/',
  '  https://api.example.com/v1  ',
  'https://exa\nmple.com/pa\tth',
  'http://localhost:8080',
  'HTTPS://API.EXAMPLE.COM',
  'http:example.com',
  'https:/path',
  'ftp://files.example.com',
  'mailto:ops@example.com',
  'file:///etc/hosts',
  'javascript:alert(1)',
  'api.example.com',
  'http://',
  'http://exa mple.com',
  '//example.com',
  '',
  '   ',
  42,
  null,
  undefined,
  { href: 'https://example.com' },
];

const UUID_INPUTS = [
  '3f0c8b5e-9d2a-4c1b-8e7f-1a2b3c4d5e6f',
  '3F0C8B5E-9D2A-4C1B-8E7F-1A2B3C4D5E6F',
  '3f0c8b5e-9d2a-7c1b-8e7f-1a2b3c4d5e6f',
  '3f0c8b5e-9d2a-9c1b-8e7f-1a2b3c4d5e6f',
  '3f0c8b5e-9d2a-4c1b-ce7f-1a2b3c4d5e6f',
  '3f0c8b5e-9d2a-0c1b-8e7f-1a2b3c4d5e6f',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF',
  ' 3f0c8b5e-9d2a-4c1b-8e7f-1a2b3c4d5e6f',
  '3f0c8b5e9d2a4c1b8e7f1a2b3c4d5e6f',
  '{3f0c8b5e-9d2a-4c1b-8e7f-1a2b3c4d5e6f}',
  'not-a-uuid',
  '',
  7,
  null,
];

const NUMBER_INPUTS = [
  0,
  1,
  -3,
  42,
  2.5,
  -0.5,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  Number.MAX_SAFE_INTEGER + 1,
  Number.MIN_SAFE_INTEGER - 1,
  2 ** 60,
  -(2 ** 60),
  1e300,
  Infinity,
  -Infinity,
  NaN,
  '5',
  null,
  undefined,
];

describe('the lean builders parse as the zod/mini builders they stand for', () => {
  it.each([
    '2026-11-26T15:00:00Z',
    '2026-11-26T15:00:00.123+02:00',
    '2026-11-26T15:00:00.123456789Z',
    '2026-11-26T15:00:00-11:30',
    '2026-11-26T15:00:00+24:00',
    '2026-11-26T15:00:00+0200',
    '2026-11-26T15:00Z',
    '2026-11-26T24:00:00Z',
    '2026-11-26t15:00:00z',
    '2026-11-26 15:00:00Z',
    '2024-02-29T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '2000-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-11-26T15:00:00',
    '2026-11-26',
    'yesterday',
    '',
    42,
    null,
    undefined,
  ])('isoDatetime() and isoDatetime({ offset: true }) like z.iso.datetime on %j', (input) => {
    expect(outcome(isoDatetime({ offset: true }), input)).toEqual(
      outcome(z.iso.datetime({ offset: true }), input),
    );
    expect(outcome(isoDatetime(), input)).toEqual(outcome(z.iso.datetime(), input));
    expect(shown(isoDatetime({ offset: true }), input)).toEqual(
      shown(z.iso.datetime({ offset: true }), input),
    );
  });

  it('isoDatetime() shows in a JSON Schema as z.iso.datetime does (the dashboard file schema)', () => {
    for (const params of [{ offset: true }, {}])
      expect(z.toJSONSchema(isoDatetime(params))).toEqual(z.toJSONSchema(z.iso.datetime(params)));
    expect(z.toJSONSchema(isoDatetime({ offset: true }))).toMatchObject({
      type: 'string',
      format: 'date-time',
    });
  });

  it.each(['42', ' 7 ', '1e3', '', 'ten', '0x10', 3.5, true, null, undefined])(
    'coercedNumber() with checks like z.coerce.number() on %j',
    (input) => {
      const lean = coercedNumber().check(z.int(), z.positive());
      const zods = z.coerce.number().check(z.int(), z.positive());
      expect(outcome(lean, input)).toEqual(outcome(zods, input));
    },
  );

  it.each([{ a: 'x' }, { a: 3 }, {}, null, 'text', [1]])(
    'withFallback(schema, value) like z.catch(schema, value) on %j',
    (input) => {
      const inner = () => z.optional(z.looseObject({ a: z.string() }));
      expect(outcome(withFallback(inner(), undefined), input)).toEqual(
        outcome(z.catch(inner(), undefined), input),
      );
      expect(outcome(withFallback(z.array(z.number()), []), input)).toEqual(
        outcome(z.catch(z.array(z.number()), []), input),
      );
    },
  );

  it.each(URL_INPUTS)('url() like z.url() on %j', (input) => {
    expect(outcome(url(), input)).toEqual(outcome(z.url(), input));
    expect(shown(url(), input)).toEqual(shown(z.url(), input));
  });

  it.each(URL_INPUTS)('url({ protocol: /^https?$/ }) like z.url(the same) on %j', (input) => {
    const lean = z.object({ url: url({ protocol: /^https?$/ }) });
    const zods = z.object({ url: z.url({ protocol: /^https?$/ }) });
    expect(outcome(lean, { url: input })).toEqual(outcome(zods, { url: input }));
    expect(shown(lean, { url: input })).toEqual(shown(zods, { url: input }));
  });

  it.each(URL_INPUTS)('url({ protocol: /^(ftp|https?)$/ }) like z.url(the same) on %j', (input) => {
    // another pattern than zod's http one: no `://` guard, only the scheme is matched
    const protocol = /^(ftp|https?)$/;
    expect(outcome(url({ protocol }), input)).toEqual(outcome(z.url({ protocol }), input));
  });

  it.each(URL_INPUTS)('url() with a further check like z.url() with it on %j', (input) => {
    const http = z.refine<string>((text) => /^https?:\/\//i.test(text), 'expected an http(s) URL');
    expect(shown(url().check(http), input)).toEqual(shown(z.url().check(http), input));
  });

  it.each(UUID_INPUTS)('uuidString() like z.uuid() on %j', (input) => {
    expect(outcome(uuidString(), input)).toEqual(outcome(z.uuid(), input));
    const inList = (item: z.ZodMiniType) => z.array(item).check(z.minLength(1));
    expect(shown(inList(uuidString()), [input])).toEqual(shown(inList(z.uuid()), [input]));
  });

  it.each(NUMBER_INPUTS)(
    'z.number().check(safeInteger()) like z.int() as a check on %j',
    (input) => {
      expect(outcome(z.number().check(safeInteger()), input)).toEqual(
        outcome(z.number().check(z.int()), input),
      );
      const lean = z.object({ n: z.number().check(safeInteger(), z.positive(), z.lte(1000)) });
      const zods = z.object({ n: z.number().check(z.int(), z.positive(), z.lte(1000)) });
      expect(shown(lean, { n: input })).toEqual(shown(zods, { n: input }));
    },
  );

  it.each(['42', ' 7 ', '2.5', '-1', '9007199254740993', 'ten', ''])(
    'coercedNumber() with safeInteger() like z.coerce.number() with z.int() on %j',
    (input) => {
      const lean = coercedNumber().check(safeInteger(), z.positive());
      const zods = z.coerce.number().check(z.int(), z.positive());
      expect(shown(lean, input)).toEqual(shown(zods, input));
    },
  );

  it.each(['https://example.com', 'nope', 3, '3f0c8b5e-9d2a-4c1b-8e7f-1a2b3c4d5e6f'])(
    'url({ error }) and uuidString({ error }) like zod given the same message on %j',
    (input) => {
      const error = 'expected a service id (a UUID); write a name as a ${VARIABLE}';
      expect(shown(uuidString({ error }), input)).toEqual(shown(z.uuid({ error }), input));
      expect(shown(url({ error }), input)).toEqual(shown(z.url({ error }), input));
    },
  );

  class Headers {
    constructor(readonly a = 'x') {}
  }
  const nullProto = Object.assign(Object.create(null) as object, { a: 'x' });
  it.each([
    { 'x-token': 'abc', Accept: 'json' },
    {},
    { '': 'empty name' },
    { a: 3, b: 'ok', c: null },
    { '': 1, '7': 'seven', '1.5': 2 },
    { a: 'x', ['__proto__']: 'y' },
    JSON.parse('{"__proto__": "x", "b": "y"}') as unknown,
    nullProto,
    Object.defineProperty({ a: 'x' }, 'hidden', { value: 3, enumerable: false }),
    { [Symbol('s')]: 'x' },
    { ' __proto__ ': 'x', ' b ': 'y', '  ': 'z' },
    new Headers(),
    new Map([['a', 'x']]),
    new Date(0),
    ['a'],
    'a=x',
    null,
    undefined,
    5,
  ])('stringRecord(key, value) like z.record(key, value) on %j', (input) => {
    const name = () => z.string().check(z.minLength(1));
    expect(outcome(stringRecord(name(), z.string()), input)).toEqual(
      outcome(z.record(name(), z.string()), input),
    );
    const trimmed = () => z.string().check(z.trim(), z.minLength(1));
    expect(outcome(stringRecord(trimmed(), z.string()), input)).toEqual(
      outcome(z.record(trimmed(), z.string()), input),
    );
    // inside an object with a refinement, as webhookWrite holds it
    const slackRefuses = z.superRefine<{ headers?: unknown }>((body, ctx) => {
      if (body.headers)
        ctx.addIssue({ code: 'custom', path: ['headers'], message: 'not for slack' });
    });
    const lean = z.object({ headers: z.optional(stringRecord(name(), z.string())) });
    const zods = z.object({ headers: z.optional(z.record(name(), z.string())) });
    expect(shown(lean.check(slackRefuses), { headers: input })).toEqual(
      shown(zods.check(slackRefuses), { headers: input }),
    );
  });

  it('the checks refuse with the messages users read', () => {
    expect(shown(z.object({ u: url() }), { u: 'nope' })).toEqual({ lines: ['u: Invalid URL'] });
    expect(shown(z.object({ id: uuidString() }), { id: 'x' })).toEqual({
      lines: ['id: Invalid UUID'],
    });
    expect(shown(z.object({ n: z.number().check(safeInteger()) }), { n: 1.5 })).toEqual({
      lines: ['n: Invalid input: expected int, received number'],
    });
    const headers = z.object({ h: stringRecord(z.string().check(z.minLength(1)), z.string()) });
    expect(shown(headers, { h: { '': 'x', b: 2 } })).toEqual({
      lines: ['h.: Invalid key in record', 'h.b: Invalid input: expected string, received number'],
    });
  });

  it('withFallback keeps what parses and gives the fallback for what does not', () => {
    const tolerant = z.object({ n: withFallback(z.number(), -1) });
    expect(tolerant.parse({ n: 5 })).toEqual({ n: 5 });
    expect(tolerant.parse({ n: 'five' })).toEqual({ n: -1 });
  });
});
