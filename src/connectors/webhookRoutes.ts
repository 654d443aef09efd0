import { createHmac, timingSafeEqual } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { ProviderConnectorConfig, WhatsappConnectorConfig } from '../config/configFile.js';
import type { CarrierReceipt } from '../delivery/receiptSql.js';
import { herald } from '../errors/catalogue.js';
import type { Routes } from '../http/server.js';
import { parseProviderWebhook } from './http/providerConnector.js';
import { parseWhatsappWebhook } from './http/whatsappConnector.js';
import { bodyProblem } from '../http/server.js';

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
 * Carrier webhooks: `POST /webhooks/{connector id}` takes status reports (and WhatsApp inbound messages) from
 * HTTP providers, checks their signature over the raw body, records the receipts and only then answers 200, so
 * that a provider resends whatever Herald did not record. `GET` answers Meta's webhook verification.
 */
export const webhookRoutes: Routes = (app, ctx) => {
  // Status times are Herald's own clock at receipt, like SMPP receipts: lifetimes never depend on a carrier's clock.
  const receivedNow = (receipts: CarrierReceipt[]): CarrierReceipt[] => {
    const at = ctx.clock.now();
    return receipts.map((receipt) => ({ ...receipt, at }));
  };
  const connectors = new Map(ctx.configFile.connectors.filter((c) => c.type !== 'smpp').map((c) => [c.id, c]));
  void app.register(async (plain) => {
    const scope = plain.withTypeProvider<TypeBoxTypeProvider>();
    // Signatures cover the exact bytes: keep them, then parse.
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
      request.rawBody = body as Buffer;
      const text = (body as Buffer).toString('utf8');
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return done(herald('badJson', { reason: 'not valid JSON' }), undefined);
      }
      // The same refusals as every other JSON body: too deep, or a NUL the database cannot store.
      const problem = bodyProblem(value, text);
      done(problem ? herald('badJson', { reason: problem }) : null, problem ? undefined : value);
    });

    scope.post(
      '/webhooks/:connectorId',
      { schema: { hide: true, params: Type.Object({ connectorId: Type.String() }) } },
      async (request) => {
        const connector = connectors.get(request.params.connectorId);
        if (!connector) throw herald('notFound', { what: `Connector ${request.params.connectorId}` });
        const raw = request.rawBody ?? Buffer.alloc(0);
        if (connector.type === 'whatsapp') {
          const config = connector as WhatsappConnectorConfig;
          if (!signatureValid(request.headers['x-hub-signature-256'], config.appSecret, raw)) throw herald('badCredentials');
          const { receipts, inbound } = parseWhatsappWebhook(connector.id, request.body);
          await ctx.receiptSink(receivedNow(receipts));
          if (inbound.length > 0) await ctx.inboundSink(connector.id, inbound);
        } else {
          const config = connector as ProviderConnectorConfig;
          if (!signatureValid(request.headers['x-signature'], config.webhookSecret, raw)) throw herald('badCredentials');
          await ctx.receiptSink(receivedNow(parseProviderWebhook(connector.id, request.body)));
        }
        return { ok: true };
      },
    );

    scope.get(
      '/webhooks/:connectorId',
      { schema: { hide: true, params: Type.Object({ connectorId: Type.String() }) } },
      async (request, reply) => {
        const connector = connectors.get(request.params.connectorId);
        const query = request.query as Record<string, string | undefined>;
        if (connector?.type !== 'whatsapp' || !(connector as WhatsappConnectorConfig).verifyToken) {
          throw herald('notFound', { what: `Connector ${request.params.connectorId}` });
        }
        if (query['hub.mode'] !== 'subscribe' || query['hub.verify_token'] !== (connector as WhatsappConnectorConfig).verifyToken) {
          throw herald('accessDenied');
        }
        return reply.type('text/plain').send(query['hub.challenge'] ?? '');
      },
    );
  });
};
