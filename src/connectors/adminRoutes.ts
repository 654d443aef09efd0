import { Type } from 'typebox';
import type { Queryable } from '../db/db.js';
import { requireAdmin } from '../http/auth.js';
import { errorResponses } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { isoUtc } from '../util/time.js';
import { CONNECTOR_STATUS_STALE_MS } from './connectorStatus.js';
import { connectorStatusList } from './connectorStatusSql.js';

const ConnectorStatus = Type.Object({
  id: Type.String(),
  type: Type.String(),
  channel: Type.String(),
  process: Type.String({ description: 'The worker process that runs it: hostname:pid' }),
  available: Type.Boolean({ description: 'Bound (SMPP) or ready (HTTP): new submissions can go' }),
  state: Type.String(),
  inFlight: Type.Integer(),
  window: Type.Integer(),
  mps: Type.Number(),
  submitted: Type.Integer({ description: 'Submissions since the process started' }),
  submitRate: Type.Union([Type.Number(), Type.Null()], {
    description: 'Messages per second between the last two reports (2 s apart); null until there are two',
  }),
  lastError: Type.Union([Type.String(), Type.Null()], { description: 'The last error, in words' }),
  lastErrorAt: Type.Union([Type.String(), Type.Null()], { description: 'When the last error happened' }),
  queued: Type.Integer({ description: 'Submissions waiting for room in the window' }),
  profile: Type.Union([Type.String(), Type.Null()], {
    description: 'A declarative connector (type http): the profile it follows (profiles/), if any',
  }),
  balance: Type.Union([Type.Number(), Type.Null()], {
    description: 'The balance left at the provider, as its last answer said (declarative connectors that read one)',
  }),
  throttled: Type.Integer({
    description: 'Answers that asked to send slower (SMPP ESME_RTHROTTLED, ESME_RMSGQFUL) since the process started',
  }),
  pausedUntil: Type.Union([Type.String(), Type.Null()], {
    description: 'While those answers pause sending: when the pause ends (as last reported); null when sending',
  }),
  updatedAt: Type.String(),
  stale: Type.Boolean({ description: 'The last report is older than 10 s: the process is stuck, cut off or gone' }),
});

const QueueState = Type.Object({
  state: Type.String({
    description: 'waiting (to be sent), sent (waiting for a receipt), delivered (waiting for a read)',
  }),
  messages: Type.Integer(),
  oldestAgeSeconds: Type.Number(),
});

/**
 * What the operator's view of the connectors shows of the delivery queue: messages/ counts it (messageQueueFigures,
 * passed in by main.ts). Connectors sit below messages, which stores their receipts, and do not import it.
 */
export interface DeliveryQueue {
  /** The queue by state (waiting, sent, delivered): its messages and the age in seconds of the oldest. */
  figures(db: Queryable, now: Date): Promise<readonly { state: string; messages: number; oldest_age_s: number }[]>;
}

/** The operator's view of the connectors of every worker process, with their live state, and of the queue. */
export function adminConnectorRoutes(deliveryQueue: DeliveryQueue): Routes {
  return (app, ctx) => {
    app.get(
      '/admin/v1/connectors',
      {
        onRequest: requireAdmin(ctx),
        schema: {
          tags: ['Operator: connectors'],
          summary: 'Connectors of every worker process with their live state, and the delivery queue',
          description:
            'Each worker process reports its connectors every 2 s; a process that stops cleanly removes its rows.',
          security: [{ adminToken: [] }],
          response: {
            200: Type.Object({ items: Type.Array(ConnectorStatus), queue: Type.Array(QueueState) }),
            ...errorResponses(401),
          },
        },
      },
      async () => {
        const now = ctx.clock.now();
        const [rows, queue] = [await connectorStatusList(ctx.readDb), await deliveryQueue.figures(ctx.readDb, now)];
        return {
          items: rows.map((row) => ({
            id: row.connector_id,
            type: row.type,
            channel: row.channel,
            process: row.process,
            available: row.available,
            state: row.state,
            inFlight: row.in_flight,
            window: row.window_size,
            mps: row.mps,
            submitted: row.submitted,
            submitRate: row.submit_rate === null ? null : Math.round(row.submit_rate * 100) / 100,
            lastError: row.last_error,
            lastErrorAt: isoUtc(row.last_error_at),
            queued: row.queued,
            profile: row.profile,
            balance: row.balance === null ? null : Number(row.balance),
            throttled: Number(row.throttled),
            // A pause over by now (reports come every 2 s, pauses last 0.5-4 s) is not shown as current.
            pausedUntil: row.paused_until && row.paused_until > now ? isoUtc(row.paused_until)! : null,
            updatedAt: isoUtc(row.updated_at)!,
            stale: now.getTime() - row.updated_at.getTime() > CONNECTOR_STATUS_STALE_MS,
          })),
          queue: queue.map((q) => ({
            state: q.state,
            messages: q.messages,
            oldestAgeSeconds: Math.max(0, Math.round(q.oldest_age_s)),
          })),
        };
      },
    );
  };
}
