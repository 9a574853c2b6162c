/** A tiny method + path-pattern router: `/v1/organizations/:organizationId/keys`. */
export interface Route<H> {
  method: string;
  pattern: string;
  handler: H;
}

export interface RouteMatch<H> {
  route: Route<H>;
  params: Record<string, string>;
}

export function route<H>(method: string, pattern: string, handler: H): Route<H> {
  return { method, pattern, handler };
}

export function matchRoute<H>(
  routes: readonly Route<H>[],
  method: string,
  path: string,
): RouteMatch<H> | undefined {
  const parts = splitPath(path);
  for (const candidate of routes) {
    if (candidate.method !== method) continue;
    const params = matchPattern(splitPath(candidate.pattern), parts);
    if (params) return { route: candidate, params };
  }
  return undefined;
}

function splitPath(path: string): string[] {
  return path.split('/').filter((part) => part !== '');
}

function matchPattern(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i];
    const actual = parts[i];
    if (expected.startsWith(':')) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(actual);
      } catch {
        return undefined;
      }
      params[expected.slice(1)] = decoded;
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return params;
}
