import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfigFile } from '../../src/config/configFile.js';
import type { ConfigFile } from '../../src/config/index.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { untilWritten } from '../helpers/signals.js';
import { waitFor } from '../helpers/waitFor.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';

const ID = 'vk-batched';
const USER = 'acme';
const PASSWORD = 'pa:ss';
/** A 64-bit id, as some providers give them: a double would round it to ...904. */
const LONG_ID = '3222269333010907123';

/**
 * A small provider of its own shape, for what the profiles use in turn: batches (three messages a request, each
 * with its result), Basic authentication, exact long ids, prices and a balance in the answer, and statuses asked
 * for by poll (two ids a request). Its wire format is this test's; the real providers' are in test/connectors/
 * providers.
 */
class BatchProvider {
  readonly requests: { path: string; auth: string | undefined; body: any }[] = [];
  private server: Server | undefined;
  private sequence = 0;
  /** The provider's ids by destination, and what each poll says of them. */
  readonly states = new Map<string, string>();

  async start(): Promise<string> {
    this.server = createServer(async (req, res) => {
      const body = await text(req);
      const url = new URL(req.url!, 'http://x');
      this.requests.push({
        path: url.pathname + url.search,
        auth: req.headers.authorization,
        body: body && JSON.parse(body),
      });
      const expected = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
      const answer = (status: number, value: string) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(value);
      if (req.headers.authorization !== expected) return answer(401, '{"status":"auth"}');
      if (url.pathname === '/send') {
        const { messages } = JSON.parse(body);
        if (messages.length > 3) return answer(400, '{"status":"too-many"}');
        // Written by hand: the long id must reach Herald as a bare number with all its digits.
        const results = messages.map((m: any) => {
          if (m.to.endsWith('8')) return '{"code":"BAD_NUMBER","text":"The number is not ours"}';
          const id = m.to.endsWith('1') ? LONG_ID : `p-${++this.sequence}`;
          this.states.set(id, 'QUEUED');
          return `{"id":${m.to.endsWith('1') ? id : JSON.stringify(id)},"cost":"0.35"}`;
        });
        return answer(200, `{"status":"ok","balance":99.5,"results":[${results.join(',')}]}`);
      }
      if (url.pathname === '/status') {
        const ids = (url.searchParams.get('ids') ?? '').split(',');
        const items = ids.map(
          (id) => `{"id":${id === LONG_ID ? id : JSON.stringify(id)},"state":"${this.states.get(id) ?? 'UNKNOWN'}"}`,
        );
        return answer(200, `{"items":[${items.join(',')}]}`);
      }
      answer(404, '{}');
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
  }
}

async function text(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

describe.each(ENGINES)(
  'a declarative connector with batches, polls, prices and a balance (DESIGN 19) (%s)',
  (engine) => {
    let t: TestHerald;
    let account: TestAccount;
    const provider = new BatchProvider();
    let baseUrl = '';

    const withProvider = (file: ConfigFile): ConfigFile =>
      parseConfigFile({
        connectors: [
          ...file.connectors.filter((c) => c.id !== 'sim-vk'),
          {
            id: ID,
            type: 'http',
            channel: 'VK',
            baseUrl,
            secrets: { USER, PASSWORD },
            errorCodes: { BAD_NUMBER: 1 },
            request: {
              path: '/send',
              auth: { basic: { user: '{secret:USER}', password: '{secret:PASSWORD}' } },
              body: { messages: [] },
            },
            batch: { size: 3, into: '$.messages', item: { to: '{destination}', text: '{text}', ref: '{messageUuid}' } },
            response: {
              success: { path: '$.status', equals: 'ok' },
              results: '$.results[*]',
              id: '$.id',
              errorCode: '$.code',
              errorText: '$.text',
              permanent: ['BAD_NUMBER'],
              price: '$.cost',
              balance: '$.balance',
            },
            status: {
              poll: {
                request: {
                  method: 'GET',
                  path: '/status?ids={carrierIds}',
                  auth: { basic: { user: '{secret:USER}', password: '{secret:PASSWORD}' } },
                },
                intervalSeconds: 30,
                batch: 2,
                items: '$.items[*]',
                id: '$.id',
                status: '$.state',
              },
              map: { QUEUED: 'sent', DELIVERED: 'delivered', READ: 'read', FAILED: 'undelivered' },
            },
          },
        ],
        routes: file.routes.map((r) => (r.channel === 'VK' ? { ...r, connectors: [ID] } : r)),
      });

    beforeAll(async () => {
      baseUrl = await provider.start();
      t = await startTestHerald(engine, {
        delivery: { delayMs: 10, configure: withProvider },
        clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      });
      account = await t.createAccount({ channels: { VK: true } });
    });
    afterAll(async () => {
      await t?.close();
      await provider.stop();
    });

    const get = async (id: string) =>
      (await t.call('GET', `/api/v1/message/${id}`, { token: account.traffic })).body as Record<string, any>;
    const poll = () => t.herald.jobs!.run(`status-poll:${ID}`);

    it('sends messages handed over together in batches of its size, each with its outcome, id and price', async () => {
      const destinations = ['79161700011', '79161700012', '79161700013', '79161700014', '79161700018'];
      const ids = await t.send(
        account.traffic,
        destinations.map((destination) => ({ channelType: 'VK', senderName: 'club1', destination, content: 'Hi' })),
      );
      const messages = await untilWritten(t.herald, async () => {
        const m = await Promise.all(ids.map(get));
        return m.every((x) => x.status === 'sent' || x.status === 'unsent') && m;
      });
      expect(messages.map((m) => m.status)).toEqual(['sent', 'sent', 'sent', 'sent', 'unsent']);
      expect(messages[4]).toMatchObject({ errorCode: 1 });
      const sends = provider.requests.filter((r) => r.path === '/send');
      expect(sends.every((r) => r.body.messages.length <= 3)).toBe(true);
      expect(sends.flatMap((r) => r.body.messages.map((m: any) => m.to)).sort()).toEqual(destinations);
      const rows = await t.testDb.db.query<{ carrier_id: string; buy_price: string }>(
        'SELECT carrier_id, buy_price::text FROM submissions WHERE connector_id = $1 ORDER BY carrier_id',
        [ID],
      );
      expect(rows).toHaveLength(4);
      expect(rows.map((r) => r.carrier_id)).toContain(LONG_ID);
      expect(rows.every((r) => Number(r.buy_price) === 0.35)).toBe(true);
    });

    it('polls messages without a final status, two ids a request, and stops asking once they are final', async () => {
      for (const id of provider.states.keys()) provider.states.set(id, id === LONG_ID ? 'READ' : 'DELIVERED');
      const before = provider.requests.length;
      await poll();
      const asked = provider.requests.slice(before);
      expect(asked.length).toBeGreaterThanOrEqual(2);
      expect(asked.every((r) => r.path.startsWith('/status?ids=') && r.path.split(',').length <= 2)).toBe(true);
      expect(asked.some((r) => decodeURIComponent(r.path).includes(LONG_ID))).toBe(true);
      const long = (
        await t.testDb.db.query<{ message_id: string }>(
          'SELECT message_id FROM submissions WHERE connector_id = $1 AND carrier_id = $2',
          [ID, LONG_ID],
        )
      )[0]!;
      const read = await untilWritten(t.herald, async () => {
        const m = await get(long.message_id);
        return m.readStatus === 'read' && m;
      });
      expect(read.status).toBe('delivered');
      // Delivered, and a read may still follow: those are asked about again; the read one no more.
      const left = await t.testDb.db.query<{ carrier_id: string }>(
        'SELECT carrier_id FROM submission_polls WHERE connector_id = $1',
        [ID],
      );
      expect(left.map((r) => r.carrier_id)).not.toContain(LONG_ID);
      expect(left).toHaveLength(3);
    });

    it("shows the operator the provider's balance, the last error in words with its time, and the queue", async () => {
      // Each worker reports its connectors every 2 s: a report made after the sends.
      const connector = await waitFor(async () => {
        const reply = await t.admin('GET', '/admin/v1/connectors');
        const c = (reply.body.items as any[]).find((x) => x.id === ID);
        return c?.lastError ? c : undefined;
      });
      expect(connector).toMatchObject({ type: 'http', profile: null, balance: 99.5, queued: 0 });
      expect(connector.lastError).toContain('error BAD_NUMBER: The number is not ours');
      expect(connector.lastErrorAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      const metrics = (await t.call('GET', '/metrics')).body as string;
      expect(metrics).toContain(`herald_connector_balance{connector="${ID}",channel="VK"} 99.5`);
    });
  },
);
