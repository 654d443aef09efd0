import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  /** The request target: path and query. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly raw: string;
  readonly body: any;
  readonly at: number;
}

/** How the receiver answers a request: a status, or 'hang' (never answer). */
export type Answer = number | 'hang';

/**
 * A real HTTP callback receiver on a loopback port: records every request and answers with what `answer` says
 * (by default 200), so tests can make it fail, hang, or come back.
 */
export class Receiver {
  readonly received: Received[] = [];
  answer: (request: Received, index: number) => Answer = () => 200;
  private server: Server | undefined;
  private readonly hanging = new Set<() => void>();
  port = 0;

  get url(): string {
    return `http://127.0.0.1:${this.port}/callbacks`;
  }

  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(raw);
        } catch {
          body = undefined;
        }
        const request: Received = { url: req.url ?? '', headers: req.headers, raw, body, at: Date.now() };
        this.received.push(request);
        const answer = this.answer(request, this.received.length - 1);
        if (answer === 'hang') {
          const release = () => res.destroy();
          this.hanging.add(release);
          return;
        }
        res.writeHead(answer, { 'content-type': 'application/json' });
        res.end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** Every event received, in arrival order, flattened from the POSTed arrays. */
  events(): any[] {
    return this.received.flatMap((r) => (Array.isArray(r.body) ? r.body : []));
  }

  async stop(): Promise<void> {
    for (const release of this.hanging) release();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
