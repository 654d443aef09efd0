import { Type } from 'typebox';
import {
  principalOf,
  requireToken,
  tokenLiveBoundToCenter,
  trafficCenterCount,
  trafficCenterDelete,
  trafficCenterGet,
  trafficCenterHold,
  trafficCenterInsert,
  trafficCenterList,
  trafficCenterLock,
  type TrafficCenterRow,
  trafficCenterUpdate,
} from '../accounts/index.js';
import { CALLBACK_URL_MAX_LENGTH, callbackUrlProblem } from '../callbacks/index.js';
import { lockAccount } from '../db/accountLocks.js';
import type { Queryable } from '../db/db.js';
import { herald } from '../errors/catalogue.js';
import { requireAdmin } from '../http/auth.js';
import { errorResponses, Id, IdParam, PAGE_PARAMETERS, paginated, Query } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { SENDER_NAME_MAX_LENGTH } from '../senderNames/index.js';
import { maskCallbackUrl } from '../shared/callbackUrlMask.js';
import { isoUtc } from '../util/time.js';
import { adminInboundNumberRoutes } from './inboundNumberRoutes.js';
import { unroutedInboundList } from './unroutedInboundSql.js';
import {
  inboundRuleCount,
  inboundRuleDelete,
  inboundRuleGet,
  inboundRuleInsert,
  inboundRuleList,
  type InboundRuleRow,
  inboundRuleUpdate,
  inboundRuleUsesCenter,
} from './inboundRuleSql.js';

const Center = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  isDefault: Type.Boolean(),
  createdAt: Type.String(),
});
const Rule = Type.Object({
  id: Type.Integer(),
  trafficCenterId: Type.Integer(),
  callbackUrl: Type.Union([Type.String(), Type.Null()]),
  senderNames: Type.Union([Type.Array(Type.String()), Type.Null()]),
  channelType: Type.String(),
  createdAt: Type.String(),
});
/**
 * The largest body a valid rule needs, so that a bigger one is refused (413 4130) before it is read, let alone parsed:
 * 16 KiB for the URL (2,048 characters, each escaped as \uXXXX at worst) and the rest, and 800 bytes a sender name
 * (64 characters outside the BMP, each escaped as a \uXXXX\uXXXX pair: 768). A center is a name of 200 characters
 * (2,400 bytes so escaped).
 */
const ruleBodyLimit = (maxSenderNames: number): number => 16 * 1024 + maxSenderNames * 800;
const CENTER_BODY_LIMIT = 4 * 1024;

/** A rule as a client writes it; a list over `maxSenderNames` (HERALD_INBOUND_RULE_SENDER_NAMES) is refused. */
const ruleBody = (maxSenderNames: number) =>
  Type.Object(
    {
      trafficCenterId: Id(),
      callbackUrl: Type.Optional(Type.Union([Type.String({ maxLength: CALLBACK_URL_MAX_LENGTH }), Type.Null()])),
      senderNames: Type.Optional(
        Type.Union([
          Type.Array(Type.String({ minLength: 1, maxLength: SENDER_NAME_MAX_LENGTH }), { maxItems: maxSenderNames }),
          Type.Null(),
        ]),
      ),
      // SMS rules match the inbound number written to as their sender name (DESIGN 17); TELEGRAM rules the bot
      // written to (DESIGN 18).
      channelType: Type.Optional(
        Type.Union([Type.Literal('WHATSAPP'), Type.Literal('SMS'), Type.Literal('TELEGRAM')], {
          description: 'WHATSAPP (the default), SMS or TELEGRAM: the channel of the inbound messages the rule routes',
        }),
      ),
    },
    {
      additionalProperties: false,
      examples: [
        {
          trafficCenterId: 12,
          callbackUrl: 'https://crm.lavka.example/herald/inbound',
          senderNames: ['79161240001'],
          channelType: 'SMS',
        },
      ],
    },
  );

/** Ids for an error message: a JSON array of the first ten, and how many more there are. */
function listShown(ids: readonly string[]): string {
  const shown = JSON.stringify(ids.slice(0, 10));
  return ids.length > 10 ? `${shown} and ${ids.length - 10} more` : shown;
}

const centerToApi = (row: TrafficCenterRow) => ({
  id: row.id,
  name: row.name,
  isDefault: row.is_default,
  createdAt: isoUtc(row.created_at)!,
});
const ruleToApi = (row: InboundRuleRow) => ({
  id: row.id,
  trafficCenterId: row.traffic_center_id,
  callbackUrl: row.callback_url === null ? null : maskCallbackUrl(row.callback_url),
  senderNames: row.sender_names,
  channelType: row.channel_type,
  createdAt: isoUtc(row.created_at)!,
});

/** Settings / Traffic Partitioning Centers and Settings / Inbounds of spec 6.5, with TOKEN_2. */
export const inboundRoutes: Routes = (app, ctx) => {
  const onRequest = requireToken(ctx, ['system']);
  const security = [{ basicToken: [] }];
  const RuleBody = ruleBody(ctx.config.inboundRuleSenderNames);
  const ruleLimit = ruleBodyLimit(ctx.config.inboundRuleSenderNames);
  const centersPerAccount = ctx.config.trafficCentersPerAccount;
  const rulesPerAccount = ctx.config.inboundRulesPerAccount;

  app.get(
    '/api/v1/traffic-centers',
    {
      onRequest,
      schema: {
        tags: ['Inbound'],
        summary: 'Traffic partitioning centers (one is the default)',
        security,
        response: { 200: Type.Object({ items: Type.Array(Center) }) },
      },
    },
    async (request) => {
      return { items: (await trafficCenterList(ctx.db, principalOf(request).accountId)).map(centerToApi) };
    },
  );

  app.post(
    '/api/v1/traffic-centers',
    {
      onRequest,
      schema: {
        tags: ['Inbound'],
        summary: 'Create a center',
        description:
          `At most ${centersPerAccount} per account, the default included ` +
          `(HERALD_TRAFFIC_CENTERS_PER_ACCOUNT): one more is 409 4094.`,
        security,
        body: Type.Object(
          { name: Type.String({ minLength: 1, maxLength: 200 }) },
          { additionalProperties: false, examples: [{ name: 'Support' }] },
        ),
        response: { 201: Center, ...errorResponses(401, 403, 409, 413, 422) },
      },
      bodyLimit: CENTER_BODY_LIMIT,
    },
    async (request, reply) => {
      const { accountId } = principalOf(request);
      const row = await ctx.db.transaction(async (tx) => {
        await lockAccount(tx, 'inboundSettings', accountId);
        if ((await trafficCenterCount(tx, accountId)) >= centersPerAccount)
          throw herald('perAccountLimit', { what: 'traffic centers', limit: centersPerAccount });
        return trafficCenterInsert(tx, accountId, request.body.name, ctx.clock.now());
      });
      return reply.status(201).send(centerToApi(row));
    },
  );

  app.get(
    '/api/v1/traffic-centers/:id',
    {
      onRequest,
      schema: {
        tags: ['Inbound'],
        summary: 'One center',
        security,
        params: IdParam,
        response: { 200: Center, ...errorResponses(404) },
      },
    },
    async (request) => {
      const row = await trafficCenterGet(ctx.db, principalOf(request).accountId, request.params.id);
      if (!row) throw herald('notFound', { what: `Traffic center ${request.params.id}` });
      return centerToApi(row);
    },
  );

  app.patch(
    '/api/v1/traffic-centers/:id',
    {
      onRequest,
      schema: {
        tags: ['Inbound'],
        summary: 'Rename a center, or make it the default',
        security,
        params: IdParam,
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
            isDefault: Type.Optional(Type.Literal(true)),
          },
          { additionalProperties: false, examples: [{ name: 'Колл-центр Казань', isDefault: true }] },
        ),
        response: { 200: Center, ...errorResponses(404, 413, 422) },
      },
      bodyLimit: CENTER_BODY_LIMIT,
    },
    async (request) => {
      // The 404 is thrown inside the transaction so that clearing the old default rolls back with it.
      const row = await ctx.db.transaction(async (tx) => {
        const updated = await trafficCenterUpdate(
          tx,
          principalOf(request).accountId,
          request.params.id,
          request.body,
          ctx.clock.now(),
        );
        if (!updated) throw herald('notFound', { what: `Traffic center ${request.params.id}` });
        return updated;
      });
      return centerToApi(row);
    },
  );

  app.delete(
    '/api/v1/traffic-centers/:id',
    {
      onRequest,
      schema: {
        tags: ['Inbound'],
        summary: 'Delete a center that is not the default, no rule uses and no live API key is bound to',
        description:
          'The default center -> 409 4091; a center rules use -> 409 4091; a center live API keys are bound to -> ' +
          '409 4095 naming the keys (revoke them first: a key keeps its center for life).',
        security,
        params: IdParam,
        response: { 204: Type.Null(), ...errorResponses(404, 409) },
      },
    },
    async (request, reply) => {
      const { accountId } = principalOf(request);
      const { id } = request.params;
      await ctx.db.transaction(async (tx) => {
        // Locked first: a rule or a key being bound to it meanwhile waits, then finds it gone (trafficCenterHold).
        const center = await trafficCenterLock(tx, accountId, id);
        if (!center) throw herald('notFound', { what: `Traffic center ${id}` });
        if (center.is_default)
          throw herald('conflict', { reason: 'The default center cannot be deleted; make another the default first' });
        if (await inboundRuleUsesCenter(tx, accountId, id))
          throw herald('conflict', { reason: 'Inbound rules use this center; change or delete them first' });
        const keys = await tokenLiveBoundToCenter(tx, accountId, id);
        if (keys.length > 0) throw herald('centerHasKeys', { id, keys: listShown(keys) });
        await trafficCenterDelete(tx, accountId, id);
      });
      return reply.status(204).send(null);
    },
  );

  /** The fields of a rule to store; call in the transaction that stores it (the center is held until then). */
  const checkRule = async (
    tx: Queryable,
    accountId: number,
    body: {
      trafficCenterId: number;
      callbackUrl?: string | null | undefined;
      senderNames?: string[] | null | undefined;
      channelType?: string | undefined;
    },
  ) => {
    if (!(await trafficCenterHold(tx, accountId, body.trafficCenterId))) {
      throw herald('invalidField', { field: 'trafficCenterId', value: `${body.trafficCenterId} (no such center)` });
    }
    if (body.callbackUrl) {
      const problem = callbackUrlProblem(body.callbackUrl, ctx.config.callbackAllowPrivate);
      if (problem) throw herald('invalidCallbackUrl', { reason: `${problem}: ${maskCallbackUrl(body.callbackUrl)}` });
    }
    return {
      trafficCenterId: body.trafficCenterId,
      callbackUrl: body.callbackUrl ?? null,
      senderNames: body.senderNames && body.senderNames.length > 0 ? [...new Set(body.senderNames)] : null,
      channelType: body.channelType ?? 'WHATSAPP',
    };
  };

  app.get(
    '/api/v1/inbound-rules',
    {
      onRequest,
      schema: {
        tags: ['Inbound'],
        summary: 'Inbound rules',
        security,
        response: { 200: Type.Object({ items: Type.Array(Rule) }) },
      },
    },
    async (request) => ({ items: (await inboundRuleList(ctx.db, principalOf(request).accountId)).map(ruleToApi) }),
  );

  app.post(
    '/api/v1/inbound-rules',
    {
      onRequest,
      schema: {
        tags: ['Inbound'],
        summary: 'Add a rule: center, callback URL, optional sender names',
        description:
          `At most ${rulesPerAccount} rules per account (HERALD_INBOUND_RULES_PER_ACCOUNT): ` + `one more is 409 4094.`,
        security,
        body: RuleBody,
        response: { 201: Rule, ...errorResponses(401, 403, 409, 413, 422) },
      },
      bodyLimit: ruleLimit,
    },
    async (request, reply) => {
      const { accountId } = principalOf(request);
      const row = await ctx.db.transaction(async (tx) => {
        await lockAccount(tx, 'inboundSettings', accountId);
        if ((await inboundRuleCount(tx, accountId)) >= rulesPerAccount)
          throw herald('perAccountLimit', { what: 'inbound rules', limit: rulesPerAccount });
        return inboundRuleInsert(tx, accountId, await checkRule(tx, accountId, request.body), ctx.clock.now());
      });
      return reply.status(201).send(ruleToApi(row));
    },
  );

  app.get(
    '/api/v1/inbound-rules/:id',
    {
      onRequest,
      schema: {
        tags: ['Inbound'],
        summary: 'One rule',
        security,
        params: IdParam,
        response: { 200: Rule, ...errorResponses(404) },
      },
    },
    async (request) => {
      const row = await inboundRuleGet(ctx.db, principalOf(request).accountId, request.params.id);
      if (!row) throw herald('notFound', { what: `Inbound rule ${request.params.id}` });
      return ruleToApi(row);
    },
  );

  app.put(
    '/api/v1/inbound-rules/:id',
    {
      onRequest,
      schema: {
        tags: ['Inbound'],
        summary: 'Replace a rule',
        security,
        params: IdParam,
        body: RuleBody,
        response: { 200: Rule, ...errorResponses(404, 413, 422) },
      },
      bodyLimit: ruleLimit,
    },
    async (request) => {
      const { accountId } = principalOf(request);
      const row = await ctx.db.transaction(async (tx) =>
        inboundRuleUpdate(
          tx,
          accountId,
          request.params.id,
          await checkRule(tx, accountId, request.body),
          ctx.clock.now(),
        ),
      );
      if (!row) throw herald('notFound', { what: `Inbound rule ${request.params.id}` });
      return ruleToApi(row);
    },
  );

  app.delete(
    '/api/v1/inbound-rules/:id',
    {
      onRequest,
      schema: {
        tags: ['Inbound'],
        summary: 'Delete a rule',
        security,
        params: IdParam,
        response: { 204: Type.Null(), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      if (!(await inboundRuleDelete(ctx.db, principalOf(request).accountId, request.params.id)))
        throw herald('notFound', { what: `Inbound rule ${request.params.id}` });
      return reply.status(204).send(null);
    },
  );
};

/**
 * A page of the unrouted list when none is asked for: the 1,000 newest, the whole answer before the list had pages.
 */
const UNROUTED_PER_PAGE = 1000;

/** Inbound messages no account claimed, for the operator. */
export const adminInboundRoutes: Routes = (app, ctx) => {
  adminInboundNumberRoutes(app, ctx);
  app.get(
    '/admin/v1/inbounds/unrouted',
    {
      onRequest: requireAdmin(ctx),
      schema: {
        tags: ['Operator: inbound'],
        summary: 'Inbound messages whose sender name or number no account has (kept, never dropped), newest first',
        security: [{ adminToken: [] }],
        querystring: Query({
          page: PAGE_PARAMETERS.page,
          per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: UNROUTED_PER_PAGE })),
        }),
        response: {
          200: paginated(
            Type.Object({
              id: Type.Integer(),
              connectorId: Type.String(),
              senderName: Type.Union([Type.String(), Type.Null()]),
              from: Type.String(),
              text: Type.String(),
              receivedAt: Type.String(),
            }),
          ),
        },
      },
    },
    async (request) => {
      const page = request.query.page ?? 1;
      const perPage = request.query.per_page ?? UNROUTED_PER_PAGE;
      const { rows, total } = await unroutedInboundList(ctx.readDb, perPage, (page - 1) * perPage);
      return {
        page,
        per_page: perPage,
        total,
        items: rows.map((r) => ({
          id: r.id,
          connectorId: r.connector_id,
          senderName: r.sender_name,
          from: r.subscriber,
          text: r.text,
          receivedAt: isoUtc(r.received_at)!,
        })),
      };
    },
  );
};
