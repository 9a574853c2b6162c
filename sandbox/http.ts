import type { IncomingMessage, ServerResponse } from 'node:http';

/** What a surface answers; the server writes it (and may cut it, for the truncate fault). */
export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
}

const MAX_BODY = 1_048_576;

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new Error('request body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function jsonReply(
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): Reply {
  return {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
    body: JSON.stringify(value),
  };
}

export function textReply(
  status: number,
  text: string,
  contentType = 'text/plain; charset=utf-8',
): Reply {
  return { status, headers: { 'content-type': contentType }, body: text };
}

/** The gateway's answer for a path it does not route (Express default page). */
export function cannotRoute(method: string, path: string): Reply {
  const safePath = path.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return textReply(
    404,
    `<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Error</title>\n</head>\n<body>\n<pre>Cannot ${method} ${safePath}</pre>\n</body>\n</html>\n`,
    'text/html; charset=utf-8',
  );
}

/** HTML 504 as a gateway sends it when the upstream times out. */
export function gatewayTimeoutHtml(): Reply {
  return textReply(
    504,
    '<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway Time-out</h1></center>\r\n</body>\r\n</html>\r\n',
    'text/html',
  );
}

/** Writes a reply; `truncate` sends the full Content-Length but only half the body, then drops the socket. */
export function writeReply(res: ServerResponse, reply: Reply, truncate = false): void {
  const body = Buffer.from(reply.body ?? '', 'utf8');
  res.writeHead(reply.status, { ...reply.headers, 'content-length': String(body.length) });
  if (!truncate) {
    res.end(body);
    return;
  }
  res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
}
