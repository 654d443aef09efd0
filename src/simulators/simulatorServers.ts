import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { request } from 'undici';

/* What the simulators' servers share: listening on a port and closing (SMPP and HTTP), JSON answers and POSTs. */

/** An answer of a simulated API: the HTTP status and the JSON body. */
export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** Listens on `host:port` (port 0: any free one, as tests use) and resolves with the port. */
export async function listenOn(server: Server, host = '127.0.0.1', port = 0): Promise<number> {
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return (server.address() as AddressInfo).port;
}

/** Closes a server, if it was started; an HTTP server's kept-alive connections are dropped first. */
export async function closeServer(server: Server | undefined): Promise<void> {
  if (!server) return;
  if ('closeAllConnections' in server) (server as HttpServer).closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** An HTTP server whose every request goes to `handle`; one that throws is answered 500 by `failed`. */
export function jsonServer(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  failed: (error: unknown) => ApiAnswer,
): HttpServer {
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => sendJson(res, failed(error)));
  });
  server.keepAliveTimeout = 30_000;
  return server;
}

/** Answers with a JSON body. */
export function sendJson(res: ServerResponse, answer: ApiAnswer): void {
  const text = JSON.stringify(answer.body);
  res.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** POSTs a JSON body; resolves with the status it was answered, or null when no answer came. */
export async function postJson(url: string, headers: Record<string, string>, body: string): Promise<number | null> {
  return (await postJsonAnswer(url, headers, body)).status;
}

/** {@link postJson}, with the answer's body as text (empty when no answer came). */
export async function postJsonAnswer(
  url: string,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number | null; text: string }> {
  try {
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    return { status: response.statusCode, text: await response.body.text() };
  } catch {
    return { status: null, text: '' };
  }
}
