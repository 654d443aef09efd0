import { Type } from 'typebox';
import { herald } from '../errors/catalogue.js';
import { requireBearer } from '../http/auth.js';
import type { Routes } from '../http/server.js';

const DB_CHECK_TIMEOUT_MS = 2000;

/** What /readyz checked: the database, and each connector of the process. */
const ReadinessChecks = Type.Object({
  database: Type.Object({ ok: Type.Boolean(), latencyMs: Type.Number(), error: Type.Optional(Type.String()) }),
  connectors: Type.Array(Type.Object({}, { additionalProperties: true })),
});

/**
 * Operations endpoints of every process (api, worker, all): Prometheus metrics, liveness and readiness. Not under
 * /api/v1: they are for the operator's monitoring, not for clients. /metrics takes `Authorization: Bearer
 * <HERALD_METRICS_TOKEN>` when that is set.
 */
export const opsRoutes: Routes = (app, ctx) => {
  // Open on a private network, or the same Bearer check as the operator API (failed attempts limited alike).
  const auth =
    ctx.config.metricsToken === undefined ? {} : { onRequest: requireBearer(ctx.config.metricsToken, ctx.limits) };

  app.get('/metrics', { schema: { hide: true }, ...auth }, async (_request, reply) => {
    const { contentType, body } = await ctx.metrics.render();
    return reply.header('content-type', contentType).send(body);
  });

  app.get(
    '/healthz',
    {
      schema: {
        tags: ['System'],
        summary: 'Liveness: the process answers',
        security: [],
        response: { 200: Type.Object({ status: Type.Literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['System'],
        summary: 'Readiness: the database answers and, in a process with connectors, at least one is up',
        description: '503 5033 (notReady) with the same checks when not ready.',
        security: [],
        response: {
          200: Type.Object({ status: Type.Literal('ready'), checks: ReadinessChecks }),
          503: Type.Intersect([Type.Ref('ErrorBody'), Type.Object({ checks: ReadinessChecks })]),
        },
      },
    },
    async (request, reply) => {
      const started = performance.now();
      let database: { ok: boolean; latencyMs: number; error?: string };
      try {
        await withTimeout(ctx.db.query('SELECT 1'), DB_CHECK_TIMEOUT_MS);
        database = { ok: true, latencyMs: Math.round(performance.now() - started) };
      } catch (error) {
        database = { ok: false, latencyMs: Math.round(performance.now() - started), error: (error as Error).message };
      }
      const connectors = ctx
        .connectorStates()
        .map((c) => ({ id: c.id, channel: c.channel, up: c.available, state: c.state, lastError: c.lastError }));
      const connectorsOk = connectors.length === 0 || connectors.some((c) => c.up);
      const checks = { database, connectors };
      if (database.ok && connectorsOk) return { status: 'ready', checks };
      const reason = !database.ok ? 'the database does not answer' : 'no connector is up';
      return reply.status(503).send({ ...herald('notReady', { reason }).toBody(), checks });
    },
  );
};

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]);
}
