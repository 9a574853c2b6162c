/**
 * Two zod/mini builders made from zod's classes, the same schemas at a fraction of the bundle:
 * esbuild keeps every member of a namespace reached through another one, so `z.coerce.number`
 * brings the bigint and date coercions too, and `z.catch` (which reaches `core.util` that way)
 * the whole of zod's util module, about 8 KiB. test/structure/function-bundles.test.ts keeps
 * those out of the functions. (`z.iso.datetime`, which brings all four ISO formats, is a check
 * below.)
 */
import { $ZodCheckStringFormat, _coercedNumber, type $constructor } from 'zod/v4/core';
import * as z from 'zod/mini';

/** `z.coerce.number()`: `Number(input)`, then the number checks. */
export function coercedNumber(): z.ZodMiniNumber<unknown> {
  return _coercedNumber(z.ZodMiniNumber);
}

/**
 * `z.catch(schema, value)`: `value` wherever `schema` fails. It lacks zod's constant-catch mark,
 * so `z.compile` (unused here) would treat it as a catch with a callback.
 */
export function withFallback<T extends z.ZodMiniType>(
  schema: T,
  value: z.output<T>,
): z.ZodMiniCatch<T> {
  const Catch = z.ZodMiniCatch as unknown as $constructor<z.ZodMiniCatch<T>>;
  return new Catch({ type: 'catch', innerType: schema, catchValue: () => value });
}

/*
 * Checks that raise the very issues of zod's own (so the English messages are the same) without
 * the schema classes behind them: `z.url()` costs 1.7 KiB of a bundle, `z.int()` 1.3, `z.uuid()`
 * 0.7, `z.iso.datetime()` 0.6, while a custom check is a few lines.
 * test/unit/schemas/builders.test.ts holds each to the zod builder it stands for.
 */

type Payload = z.core.ParsePayload<string>;

/** `error`: the message of every issue the string schema (and so its checks) raises. */
interface Params {
  error?: string;
}

/** A check made of `run`, which gets the check itself to name it as the issue's source. */
function customCheck<T>(
  run: (payload: z.core.ParsePayload<T>, self: z.core.$ZodCheck<T>) => void,
): z.core.$ZodCheck<T> {
  const self: z.core.$ZodCheck<T> = z.check<T>((payload) => run(payload, self));
  return self;
}

/** Whether `text` is a URL as `z.url(params)` decides it (params: a protocol or none). */
function isUrl(text: string, protocol: RegExp | undefined): boolean {
  if (!protocol) return URL.canParse(text);
  // zod's own guard for http(s): `http:example.com` or `https:/path` are not URLs
  if (protocol.source === HTTP_PROTOCOL.source && !/^https?:\/\//i.test(text)) return false;
  if (!URL.canParse(text)) return false;
  protocol.lastIndex = 0;
  return protocol.test(new URL(text).protocol.slice(0, -1));
}

const HTTP_PROTOCOL = /^https?$/;

/**
 * `z.url(params)`: a string the URL parser accepts (and, with `protocol`, whose scheme matches
 * it), trimmed and without the tabs and line breaks the parser would drop.
 */
export function url(params: Params & { protocol?: RegExp } = {}): z.ZodMiniString<string> {
  const check = customCheck<string>((payload: Payload, self) => {
    const trimmed = payload.value.trim();
    if (!isUrl(trimmed, params.protocol)) {
      payload.issues.push({
        code: 'invalid_format',
        format: 'url',
        input: payload.value,
        inst: self,
        continue: true,
      });
      return;
    }
    payload.value = trimmed.replace(/[\t\n\r]/g, '');
  });
  return z.string(params).check(check);
}

/** zod's UUID pattern (any version, plus the nil and max UUIDs). */
const UUID =
  /^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$/;

/** `z.uuid(params)` (`z.uuid({ version: undefined })` too): an RFC 9562 UUID of any version. */
export function uuidString(params?: Params): z.ZodMiniString<string> {
  const check = customCheck<string>((payload: Payload, self) => {
    if (UUID.test(payload.value)) return;
    payload.issues.push({
      origin: 'string',
      code: 'invalid_format',
      format: 'uuid',
      input: payload.value,
      pattern: UUID.toString(),
      inst: self,
      continue: true,
    });
  });
  return z.string(params).check(check);
}

/** zod's ISO date: a day that exists (leap years too). */
const ISO_DATE =
  '(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))';
/** zod's time of a date-time: seconds required, any fraction. */
const ISO_TIME = '(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?';

/**
 * `z.iso.datetime(params)` (no `local`, no `precision`): `Z`, or with `offset` a `+hh:mm`
 * offset too. zod's own string-format check with zod's pattern, so a failure is zod's issue and
 * a JSON Schema shows the same `date-time` format and pattern (the dashboard file schema's);
 * zod's ISODateTime class would bring its other ISO formats.
 */
export function isoDatetime(params: { offset?: boolean } = {}): z.ZodMiniString<string> {
  const zone = params.offset ? 'Z|([+-](?:[01]\\d|2[0-3]):[0-5]\\d)' : 'Z';
  const pattern = new RegExp(`^${ISO_DATE}T(?:${ISO_TIME}(?:${zone}))$`);
  const format = new $ZodCheckStringFormat({ check: 'string_format', format: 'datetime', pattern });
  return z.string().check(format);
}

/** The check `z.int()` adds to a number: an integer within the safe range. */
export function safeInteger(): z.core.$ZodCheck<number> {
  return customCheck<number>((payload, self) => {
    const input = payload.value;
    if (!Number.isInteger(input)) {
      payload.issues.push({
        code: 'invalid_type',
        expected: 'int',
        format: 'safeint',
        input,
        inst: self,
        continue: false,
      });
      return;
    }
    if (Number.isSafeInteger(input)) return;
    const common = {
      input,
      inst: self,
      origin: 'int',
      inclusive: true,
      continue: true,
      note: 'Integers must be within the safe integer range.',
    } as const;
    payload.issues.push(
      input > 0
        ? { ...common, code: 'too_big', maximum: Number.MAX_SAFE_INTEGER }
        : { ...common, code: 'too_small', minimum: Number.MIN_SAFE_INTEGER },
    );
  });
}

/** zod's test for a record's input: an object made by `{}` or `Object.create(null)`. */
function isPlainObject(value: unknown): value is Record<PropertyKey, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const ctor: unknown = value.constructor;
  if (ctor === undefined || typeof ctor !== 'function') return true;
  const proto: unknown = ctor.prototype;
  // an array's prototype lacks its own isPrototypeOf too
  return typeof proto === 'object' && proto !== null && Object.hasOwn(proto, 'isPrototypeOf');
}

/**
 * `z.record(key, value)` for a string key schema (2.5 KiB of a bundle as zod's): an object whose
 * every own enumerable key passes `key` and every value `value`, refused key by key and value
 * by value with zod's issues.
 */
export function stringRecord<V extends z.ZodMiniType>(
  key: z.ZodMiniType<string, unknown>,
  value: V,
) {
  const check = customCheck<unknown>((payload, self) => {
    const input = payload.value;
    if (!isPlainObject(input)) {
      payload.issues.push({ expected: 'record', code: 'invalid_type', input, inst: self });
      return;
    }
    const out: Record<PropertyKey, unknown> = {};
    for (const name of Reflect.ownKeys(input)) {
      if (name === '__proto__' || !Object.prototype.propertyIsEnumerable.call(input, name))
        continue;
      const parsedKey = key.safeParse(name);
      if (!parsedKey.success) {
        const issues = parsedKey.error.issues;
        payload.issues.push({
          code: 'invalid_key',
          origin: 'record',
          issues,
          input: name,
          path: [name],
          inst: self,
        });
        continue;
      }
      if (parsedKey.data === '__proto__') continue;
      const parsedValue = value.safeParse(input[name]);
      if (parsedValue.success) out[parsedKey.data] = parsedValue.data;
      // finished issues (their message set), at the value's path under the key
      else
        for (const issue of parsedValue.error.issues)
          payload.issues.push({ ...issue, path: [name, ...issue.path] } as z.core.$ZodRawIssue);
    }
    payload.value = out;
  });
  return z.custom<Record<string, z.output<V>>>().check(check);
}
