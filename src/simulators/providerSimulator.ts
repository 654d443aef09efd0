import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { request } from 'undici';
import { isPlainObject } from '../shared/text.js';
import { outcomeOf, SIM_UNDELIVERED_ERROR } from './outcomes.js';
import { closeServer, jsonServer, listenOn, sendJson } from './simulatorServers.js';
import { Timers } from './timers.js';
import type { Clock } from '../util/clock.js';

export type SimChannel = 'WHATSAPP' | 'VIBER' | 'VK' | 'FLASHCALL' | 'VOICECODE';

/** Where the simulator reports statuses of one channel: Herald's webhook for that connector, and its secret. */
export interface SimWebhook {
  readonly url: string;
  readonly secret: string;
}

export interface ProviderSimulatorOptions {
  readonly host?: string;
  readonly port?: number;
  readonly delayMs: number;
  /** The clock of the delays (a test's, which can jump over them); the system clock by default. */
  readonly clock?: Clock;
  /** Bearer token the simulator expects (WhatsApp access token, provider api key). */
  readonly apiKey: string;
  readonly phoneNumberId: string;
}

/** One request the simulator took. */
export interface SimRequest {
  readonly channel: SimChannel;
  readonly id: string | null;
  readonly destination: string;
  readonly body: Record<string, unknown>;
  readonly status: number;
}

const PATHS: Readonly<Record<string, SimChannel>> = {
  '/viber/messages': 'VIBER',
  '/vk/messages': 'VK',
  '/flashcall/calls': 'FLASHCALL',
  '/voice/calls': 'VOICECODE',
};
const READ_TRACKED = new Set<SimChannel>(['WHATSAPP', 'VIBER', 'VK']);
const WEBHOOK_ATTEMPTS = 20;
/** Statuses due at once go in one webhook per channel, at most this many, as providers batch them. */
const STATUSES_PER_WEBHOOK = 100;

/**
 * HTTP provider simulators on one real port: the WhatsApp Business Cloud API (`POST
 * /whatsapp/{phone-number-id}/messages`) and Herald's provider adapter format for VIBER, VK, FLASHCALL and
 * VOICECODE. Outcomes follow the destination's last digit; statuses are posted, signed, to the webhooks Herald
 * registers, those due at the same moment together, and retried until Herald answers 2xx (as providers do).
 * `POST /sim/v1/inbound` makes a subscriber write to a WhatsApp sender.
 */
export class ProviderSimulator {
  readonly requests: SimRequest[] = [];
  private server: Server | undefined;
  private readonly webhooks = new Map<SimChannel, SimWebhook>();
  private readonly timers: Timers;
  private readonly prefix = randomBytes(3).toString('hex');
  private counter = 0;
  private keepRequests = true;
  /** Statuses due now, by channel, posted together once the timers due with them have run. */
  private readonly dueStatuses = new Map<SimChannel, Record<string, unknown>[]>();
  /** Channels whose requests are held unanswered (a carrier that stalls), with the answers they wait for. */
  private readonly holding = new Map<SimChannel, (() => void)[]>();
  port = 0;

  constructor(private readonly options: ProviderSimulatorOptions) {
    this.timers = new Timers(options.clock);
  }

  get url(): string {
    return `http://${this.options.host ?? '127.0.0.1'}:${this.port}`;
  }

  setWebhook(channel: SimChannel, webhook: SimWebhook): void {
    this.webhooks.set(channel, webhook);
  }

  /** Holds every request of a channel unanswered until {@link release}: a provider that has stalled. */
  hold(channel: SimChannel): void {
    if (!this.holding.has(channel)) this.holding.set(channel, []);
  }

  /** How many requests of a held channel wait for their answer. */
  heldRequests(channel: SimChannel): number {
    return this.holding.get(channel)?.length ?? 0;
  }

  /** Answers a held channel's requests, in order, and takes the next ones at once. */
  release(channel: SimChannel): void {
    const held = this.holding.get(channel) ?? [];
    this.holding.delete(channel);
    for (const answer of held) answer();
  }

  recordRequests(keep: boolean): void {
    this.keepRequests = keep;
  }

  async start(): Promise<number> {
    this.server = jsonServer(
      (req, res) => this.handle(req, res),
      (error) => ({ status: 500, body: { error: { code: 500, message: String(error) } } }),
    );
    this.port = await listenOn(this.server, this.options.host, this.options.port);
    return this.port;
  }

  async stop(): Promise<void> {
    this.timers.clear();
    await closeServer(this.server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req);
    const path = (req.url ?? '').split('?')[0]!;
    if (req.method === 'POST' && path === '/sim/v1/inbound') {
      const answer = this.inbound(body);
      if ('problem' in answer)
        return sendJson(res, { status: 422, body: { error: { code: 4220, msg: answer.problem } } });
      return sendJson(res, { status: 200, body: answer });
    }
    if (req.headers.authorization !== `Bearer ${this.options.apiKey}`) {
      return sendJson(res, { status: 401, body: { error: { code: 190, message: 'Invalid OAuth access token' } } });
    }
    if (req.method === 'POST' && path === `/whatsapp/${this.options.phoneNumberId}/messages`)
      return this.whatsapp(body, res);
    const channel = PATHS[path];
    const held = channel && this.holding.get(channel);
    if (req.method === 'POST' && held) {
      held.push(() => this.provider(channel, body, res));
      return;
    }
    if (req.method === 'POST' && channel) return this.provider(channel, body, res);
    sendJson(res, { status: 404, body: { error: { code: 404, message: `no route ${req.method} ${path}` } } });
  }

  private whatsapp(body: Record<string, unknown>, res: ServerResponse): void {
    const to = String(body.to ?? '');
    if (body.messaging_product !== 'whatsapp' || !/^\d{6,15}$/.test(to)) {
      return sendJson(res, { status: 400, body: { error: { code: 100, message: 'Invalid parameter' } } });
    }
    if (outcomeOf(to) === 'rejected') {
      this.record('WHATSAPP', null, to, body, 400);
      return sendJson(res, {
        status: 400,
        body: { error: { code: 131026, message: 'Message undeliverable', type: 'OAuthException' } },
      });
    }
    const id = `wamid.${this.nextId()}`;
    this.record('WHATSAPP', id, to, body, 200);
    sendJson(res, {
      status: 200,
      body: { messaging_product: 'whatsapp', contacts: [{ input: to, wa_id: to }], messages: [{ id }] },
    });
    this.scheduleStatuses('WHATSAPP', id, to);
  }

  private provider(channel: SimChannel, body: Record<string, unknown>, res: ServerResponse): void {
    const to = String(body.to ?? body.phone ?? '');
    if (!/^\d{6,15}$/.test(to))
      return sendJson(res, { status: 400, body: { error: { code: 4001, message: 'bad destination' } } });
    if (outcomeOf(to) === 'rejected') {
      this.record(channel, null, to, body, 422);
      return sendJson(res, {
        status: 422,
        body: { error: { code: 4221, message: 'destination refused by the network' } },
      });
    }
    const id = `${channel.toLowerCase()}-${this.nextId()}`;
    this.record(channel, id, to, body, 200);
    sendJson(res, { status: 200, body: { id } });
    this.scheduleStatuses(channel, id, to);
  }

  private nextId(): string {
    return `${this.prefix}${(++this.counter).toString(16)}`;
  }

  private record(
    channel: SimChannel,
    id: string | null,
    destination: string,
    body: Record<string, unknown>,
    status: number,
  ): void {
    if (this.keepRequests) this.requests.push({ channel, id, destination, body, status });
  }

  private scheduleStatuses(channel: SimChannel, id: string, destination: string): void {
    const outcome = outcomeOf(destination);
    if (outcome === 'silent') return;
    const delay = this.options.delayMs;
    if (outcome === 'undelivered') {
      this.timers.later(delay, () => this.postStatus(channel, id, destination, 'undelivered'));
      return;
    }
    this.timers.later(delay, () => this.postStatus(channel, id, destination, 'delivered'));
    if (outcome === 'delivered-read' && READ_TRACKED.has(channel)) {
      this.timers.later(delay * 2, () => this.postStatus(channel, id, destination, 'read'));
    }
  }

  private postStatus(
    channel: SimChannel,
    id: string,
    destination: string,
    status: 'delivered' | 'undelivered' | 'read',
  ): void {
    const timestamp = new Date();
    if (channel === 'WHATSAPP') {
      const waStatus = status === 'undelivered' ? 'failed' : status;
      this.queueStatus(channel, {
        id,
        status: waStatus,
        timestamp: String(Math.floor(timestamp.getTime() / 1000)),
        recipient_id: destination,
        ...(waStatus === 'failed' ? { errors: [{ code: SIM_UNDELIVERED_ERROR, title: 'Message undeliverable' }] } : {}),
      });
      return;
    }
    this.queueStatus(channel, {
      id,
      status,
      timestamp: timestamp.toISOString(),
      ...(status === 'undelivered' ? { errorCode: SIM_UNDELIVERED_ERROR } : {}),
    });
  }

  /** Holds a status until the timers due with it have run (setImmediate runs after them), then posts them together. */
  private queueStatus(channel: SimChannel, status: Record<string, unknown>): void {
    const due = this.dueStatuses.get(channel);
    if (due) {
      due.push(status);
      return;
    }
    this.dueStatuses.set(channel, [status]);
    setImmediate(() => {
      const statuses = this.dueStatuses.get(channel) ?? [];
      this.dueStatuses.delete(channel);
      for (let i = 0; i < statuses.length; i += STATUSES_PER_WEBHOOK) {
        const batch = statuses.slice(i, i + STATUSES_PER_WEBHOOK);
        this.postWebhook(
          channel,
          channel === 'WHATSAPP' ? this.whatsappWebhook({ statuses: batch }) : { statuses: batch },
        );
      }
    });
  }

  /**
   * `POST /sim/v1/inbound` `{channelType: "WHATSAPP", from, senderName, text}`: a subscriber's message, sent to Herald
   * as a webhook. Served on the simulator's port and, in embedded mode, on Herald's API port (simulatorRoutes.ts).
   */
  inbound(body: unknown): { id: string } | { problem: string } {
    const expected = 'Expected {channelType: "WHATSAPP", from, senderName, text}';
    if (!isPlainObject(body) || body.channelType !== 'WHATSAPP') return { problem: expected };
    if (typeof body.from !== 'string' || typeof body.text !== 'string') return { problem: expected };
    const id = `wamid.in.${this.nextId()}`;
    this.postWebhook(
      'WHATSAPP',
      this.whatsappWebhook(
        {
          contacts: [{ wa_id: body.from, profile: { name: 'Subscriber' } }],
          messages: [
            {
              from: body.from,
              id,
              timestamp: String(Math.floor(Date.now() / 1000)),
              type: 'text',
              text: { body: body.text },
            },
          ],
        },
        String(body.senderName ?? ''),
      ),
    );
    return { id };
  }

  /** A Cloud API webhook carrying one change of the `messages` field. */
  private whatsappWebhook(value: Record<string, unknown>, displayName = this.options.phoneNumberId): unknown {
    const metadata = {
      display_phone_number: displayName,
      phone_number_id: this.options.phoneNumberId,
      sender_name: displayName,
    };
    return {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: 'sim-waba',
          changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata, ...value } }],
        },
      ],
    };
  }

  private postWebhook(channel: SimChannel, payload: unknown, attempt = 1): void {
    const webhook = this.webhooks.get(channel);
    if (!webhook) return;
    const body = JSON.stringify(payload);
    const signature = createHmac('sha256', webhook.secret).update(body).digest('hex');
    const header = channel === 'WHATSAPP' ? 'x-hub-signature-256' : 'x-signature';
    request(webhook.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [header]: `sha256=${signature}` },
      body,
    })
      .then(async (response) => {
        await response.body.dump();
        if (response.statusCode >= 300) throw new Error(`HTTP ${response.statusCode}`);
      })
      .catch(() => {
        if (attempt < WEBHOOK_ATTEMPTS)
          this.timers.later(Math.min(1000 * attempt, 5000), () => this.postWebhook(channel, payload, attempt + 1));
      });
  }
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  if (chunks.length === 0) return {};
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
