import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type {
  HttpConnectorConfig,
  ProviderConnectorConfig,
  TelegramGatewayConnectorConfig,
  WhatsappConnectorConfig,
} from './connectorConfig.js';
import type { CarrierReceipt } from './connector.js';
import { herald } from '../errors/catalogue.js';
import { authFailed, authGuard } from '../http/auth.js';
import { sameSecret } from '../util/secrets.js';
import { bodyProblem, type Routes } from '../http/server.js';
import { parseProviderWebhook } from './http/providerConnector.js';
import { parseWhatsappWebhook } from './http/whatsappConnector.js';
import { gatewayReportValid, parseGatewayReport } from './http/telegramApi.js';
import { statusReportBody, statusReports, statusReportSigned } from './http/declarative/statusReports.js';
import { compileHttpConnector, type CompiledHttpConnector } from './http/declarative/httpConnectorConfig.js';
import { messageCarrierRefund } from '../messages/index.js';
import { recordStatusReports } from './statusPolls.js';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: Buffer;
  }
}

/** Checks `sha256=<hex HMAC-SHA256(secret, raw body)>` in constant time. */
export function signatureValid(header: unknown, secret: string, raw: Buffer): boolean {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const given = Buffer.from(header.slice(7), 'hex');
  const expected = createHmac('sha256', secret).update(raw).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * A connector that takes webhooks: an HTTP provider (WhatsApp Cloud API, Telegram's Gateway, or one of the simulated
 * providers). Telegram bots' updates have routes of their own (telegram/).
 */
type WebhookConnector =
  | WhatsappConnectorConfig
  | ProviderConnectorConfig
  | TelegramGatewayConnectorConfig
  | { readonly type: 'http'; readonly id: string; readonly compiled: CompiledHttpConnector };

/** Whether the raw bytes carry the connector's signature (its header and secret). */
function signedBy(connector: WebhookConnector, request: FastifyRequest, raw: Buffer, nowMs: number): boolean {
  const headers = request.headers;
  switch (connector.type) {
    case 'whatsapp':
      return signatureValid(headers['x-hub-signature-256'], connector.appSecret, raw);
    case 'telegram-gateway':
      return gatewayReportValid(connector.token, headers, raw, nowMs);
    case 'http': {
      // The address the provider called, as it knows it (Twilio signs it): Herald's public URL, else the Host.
      const base = connector.compiled.settings.publicUrl ?? `${request.protocol}://${request.headers.host ?? ''}`;
      return statusReportSigned(connector.compiled, headers, raw, base.replace(/\/+$/, '') + request.url);
    }
    default:
      return signatureValid(headers['x-signature'], connector.webhookSecret, raw);
  }
}

/**
 * Carrier webhooks: `POST /webhooks/{connector id}` takes status reports (and WhatsApp inbound messages) from
 * HTTP providers, checks their signature over the raw body, records the receipts and only then answers 200, so
 * that a provider resends whatever Herald did not record. `GET` answers Meta's webhook verification.
 *
 * Anyone can send to these URLs, so a stranger's request costs as little as it can: an unknown connector is 404
 * before the body is read, the body is at most HERALD_WEBHOOK_BODY_LIMIT (413 4130), and its signature is checked
 * on the raw bytes before anything parses them (a bad one is 401 4012, counted as a failed authentication of the
 * address). A 15 MB body to an unknown connector used to be read and parsed first: 2.8 s of the event loop.
 */
export const webhookRoutes: Routes = (app, ctx) => {
  // Status times are Herald's own clock at receipt, like SMPP receipts: lifetimes never depend on a carrier's clock.
  const receivedNow = (receipts: CarrierReceipt[]): CarrierReceipt[] => {
    const at = ctx.clock.now();
    return receipts.map((receipt) => Object.assign({}, receipt, { at }));
  };
  const connectors = new Map<string, WebhookConnector>(
    ctx.configFile.connectors
      .filter(
        (c): c is Exclude<WebhookConnector, { type: 'http' }> =>
          c.type !== 'smpp' && c.type !== 'telegram-bot' && c.type !== 'http',
      )
      .map((c) => [c.id, c]),
  );
  // Declarative connectors' reports come to /webhooks/http/{id}, read by their own settings (DESIGN 19).
  const declarative = new Map<string, WebhookConnector>(
    ctx.configFile.connectors
      .filter((c) => c.type === 'http')
      .map((c) => [c.id, { type: 'http', id: c.id, compiled: compileHttpConnector(c as HttpConnectorConfig, c.id) }]),
  );
  const connectorOf = (request: FastifyRequest): WebhookConnector | undefined =>
    (request.url.startsWith('/webhooks/http/') ? declarative : connectors).get(
      (request.params as { connectorId: string }).connectorId,
    );
  const notFound = (request: FastifyRequest) =>
    herald('notFound', { what: `Connector ${(request.params as { connectorId: string }).connectorId}` });

  void app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    // Signatures cover the exact bytes: keep them, check them, and only then parse. Declarative connectors'
    // providers may write forms (Twilio); the others write JSON.
    const parse = (request: FastifyRequest, raw: Buffer, done: (error: Error | null, body?: unknown) => void) => {
      const connector = connectorOf(request);
      if (!connector) return done(notFound(request), undefined);
      if (!signedBy(connector, request, raw, ctx.clock.nowMs())) {
        ctx.metrics.webhookRefused.inc({ connector: connector.id });
        return done(authFailed(ctx.limits, request, herald('badCredentials')), undefined);
      }
      request.rawBody = raw;
      const text = raw.toString('utf8');
      let value: unknown;
      try {
        value = connector.type === 'http' ? statusReportBody(connector.compiled, raw) : JSON.parse(text);
      } catch {
        return done(herald('badJson', { reason: 'not valid JSON' }), undefined);
      }
      // The same refusals as every other JSON body: too deep, or a NUL the database cannot store.
      const problem = bodyProblem(value, text);
      done(problem ? herald('badJson', { reason: problem }) : null, problem ? undefined : value);
    };
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) =>
      parse(request, body as Buffer, done),
    );
    scope.removeContentTypeParser('application/x-www-form-urlencoded');
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (request, body, done) =>
      parse(request, body as Buffer, done),
    );

    // The same for both: the connector (and so how its reports are read) follows from the path.
    for (const path of ['/webhooks/:connectorId', '/webhooks/http/:connectorId']) {
      scope.post(
        path,
        {
          schema: { hide: true, params: Type.Object({ connectorId: Type.String() }) },
          bodyLimit: ctx.config.webhookBodyLimitBytes,
          // Before the body is read: a connector that does not exist, and an address that keeps failing.
          onRequest: async (request) => {
            if (!connectorOf(request)) throw notFound(request);
            authGuard(ctx.limits, request);
          },
        },
        async (request, reply) => {
          const connector = connectorOf(request)!;
          // No JSON body reached the parser (and its signature check): the signature must cover the empty body.
          if (request.rawBody === undefined && !signedBy(connector, request, Buffer.alloc(0), ctx.clock.nowMs())) {
            ctx.metrics.webhookRefused.inc({ connector: connector.id });
            throw authFailed(ctx.limits, request, herald('badCredentials'));
          }
          if (connector.type === 'telegram-gateway') {
            const at = ctx.clock.now();
            const report = parseGatewayReport(connector.id, request.body, at);
            if (report.receipt) await ctx.receiptSink([report.receipt]);
            if (report.refunded && report.requestId) {
              const refund = await messageCarrierRefund(ctx.db, {
                connectorId: connector.id,
                carrierId: report.requestId,
                at,
              });
              // The Gateway sends a report again until it is answered 200: again once the message is final.
              if (refund === 'not-final') throw herald('notReady', { reason: 'the message is not final yet' });
            }
          } else if (connector.type === 'http') {
            const { compiled } = connector;
            const reports = statusReports(compiled, compiled.webhook!, request.body, ctx.clock.now());
            await recordStatusReports(ctx.db, ctx.receiptSink, connector.id, reports);
            // Some providers want nothing but a 200 back (Devino: an empty body).
            return reply.code(200).send();
          } else if (connector.type === 'whatsapp') {
            const { receipts, inbound } = parseWhatsappWebhook(connector.id, request.body);
            await ctx.receiptSink(receivedNow(receipts));
            if (inbound.length > 0) await ctx.inboundSink(connector.id, inbound);
          } else {
            await ctx.receiptSink(receivedNow(parseProviderWebhook(connector.id, request.body)));
          }
          return { ok: true };
        },
      );
    }

    // Meta's verification handshake. The verify token is a secret like a signature: compared in constant time, and
    // a wrong one counts as a failed authentication of the address (else it could be guessed at full speed).
    scope.get(
      '/webhooks/:connectorId',
      { schema: { hide: true, params: Type.Object({ connectorId: Type.String() }) } },
      async (request, reply) => {
        const connector = connectorOf(request);
        const query = request.query as Record<string, string | undefined>;
        if (connector?.type !== 'whatsapp' || !connector.verifyToken) throw notFound(request);
        authGuard(ctx.limits, request);
        const token = query['hub.verify_token'];
        if (
          query['hub.mode'] !== 'subscribe' ||
          typeof token !== 'string' ||
          !sameSecret(token, connector.verifyToken)
        ) {
          throw authFailed(ctx.limits, request, herald('accessDenied'));
        }
        return reply.type('text/plain').send(query['hub.challenge'] ?? '');
      },
    );
  });
};
