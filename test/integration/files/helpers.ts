import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir } from 'node:fs/promises';
import type { ServerContext } from '../../support/server.js';
import { TEST_ADMIN } from '../../support/server.js';
import type { ApiResult } from '../commands/schema.js';

/** A part of a multipart body: a text field, or a file with its name and type. */
export type FormPart =
  | readonly [name: string, value: string]
  | readonly [name: string, content: Uint8Array | string, filename: string, type: string];

/** A multipart request (fetch's FormData keeps the parts in order) as the admin, or anonymously. */
export async function sendForm(
  ctx: ServerContext,
  method: 'POST' | 'PATCH',
  path: string,
  parts: readonly FormPart[],
  options: { token?: string | null } = {},
): Promise<ApiResult> {
  const form = new FormData();
  for (const part of parts) {
    if (part.length === 2) form.append(part[0], part[1]);
    else form.append(part[0], new Blob([part[1]], { type: part[3] }), part[2]);
  }
  const token = options.token === undefined ? TEST_ADMIN.token : options.token;
  const res = await ctx.api(path, {
    method,
    body: form,
    headers: token === null ? {} : { Authorization: `Bearer ${token}` },
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : (JSON.parse(text) as ApiResult['body']) };
}

/** A GET as the admin, the raw response (assets are not JSON). */
export function adminGet(ctx: ServerContext, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return ctx.api(path, { headers: { Authorization: `Bearer ${TEST_ADMIN.token}`, ...headers } });
}

/** File names under a storage root, temporary ones included. */
export async function storedNames(root: string): Promise<string[]> {
  try {
    return (await readdir(root)).sort();
  } catch {
    return [];
  }
}

export interface TestHttpServer {
  readonly url: string;
  /** Requests served so far, by path. */
  readonly hits: string[];
  close(): Promise<void>;
}

/** A real node:http server on a random port of `host`, answering with `handler`. */
export async function startHttpServer(
  host: string,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<TestHttpServer> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
