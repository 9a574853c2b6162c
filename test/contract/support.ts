/* eslint-disable @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-member-access -- raw JSON bodies of the HTTP API under test */
/** What the contract tests share: the conformance check and both surfaces of one sandbox. */
import { expect } from 'vitest';
import type * as z from 'zod';
import type { Sandbox } from '../../sandbox/index';
import { mgmt, obs, type Call } from '../support/sandbox-http';

/** Fails with every field the contract does not allow, by path. */
export function conforms(schema: z.ZodType, value: unknown, what: string): void {
  const parsed = schema.safeParse(value);
  const problems = parsed.success
    ? []
    : parsed.error.issues.map((i) => `${what}.${i.path.join('.')}: ${i.message}`);
  expect(problems).toEqual([]);
}

export type SurfaceName = 'api' | 'management';

/**
 * One surface of a sandbox: `call` takes a path after `/api/v2` or `.../observability`; `payload`
 * unwraps `data` or `result`; `message` is the error text without the management `CODE: `.
 */
export interface Surface {
  name: SurfaceName;
  call(method: string, path: string, body?: unknown): Promise<Call>;
  payload(res: Call): any;
  message(res: Call): string;
}

export function surfaces(sb: () => Sandbox): Surface[] {
  return [
    {
      name: 'api',
      call: (method, path, body) => obs(sb(), method, path, body),
      payload: (res) => res.json?.data,
      message: (res) => res.json?.message ?? res.text,
    },
    {
      name: 'management',
      call: (method, path, body) =>
        mgmt(sb(), method, `/services/${sb().info.serviceId}/observability${path}`, body),
      payload: (res) => res.json?.result,
      message: (res) => String(res.json?.error ?? res.text).replace(/^[A-Z_]+: /, ''),
    },
  ];
}
