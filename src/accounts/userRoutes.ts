import { Type } from 'typebox';
import { herald } from '../errors/catalogue.js';
import { requireAdmin } from '../http/auth.js';
import { errorResponses, Id, IdParam } from '../http/schemas.js';
import type { Routes } from '../http/server.js';
import { isoUtc } from '../util/time.js';
import { accountGetOr404 } from './accounts.js';
import {
  accountUserDelete,
  accountUserInsert,
  accountUserList,
  type AccountUserRow,
  accountUserSetPassword,
} from './accountUserSql.js';
import { tokenRevokeMadeBy } from './tokenSql.js';

/** A person who signs in to an account's personal pages (/app). */
export const AccountUser = Type.Object({
  id: Type.Integer(),
  accountId: Type.Integer(),
  login: Type.String(),
  createdAt: Type.String(),
});

export const LOGIN_PATTERN = '^[A-Za-z0-9._@-]{3,64}$';
const Password = Type.String({ minLength: 8, maxLength: 200 });

function userToApi(row: AccountUserRow) {
  return { id: row.id, accountId: row.account_id, login: row.login, createdAt: isoUtc(row.created_at)! };
}

/** The operator API for the users of an account's personal pages (docs/web.md). */
export const adminUserRoutes: Routes = (app, ctx) => {
  const onRequest = requireAdmin(ctx);
  const security = [{ adminToken: [] }];
  const tags = ['Operator: accounts'];
  const mustGet = (id: number) => accountGetOr404(ctx.db, id);

  app.post(
    '/admin/v1/accounts/:id/users',
    {
      onRequest,
      schema: {
        tags,
        summary: "Create a user of the account's personal pages (login and password)",
        description: 'Logins are unique across all accounts and case-sensitive; 409 4092 when taken.',
        security,
        params: IdParam,
        body: Type.Object(
          {
            login: Type.String({ pattern: LOGIN_PATTERN, description: '3 to 64 of A-Z a-z 0-9 . _ @ -' }),
            password: Password,
          },
          { additionalProperties: false, examples: [{ login: 'anna@example.com', password: 'correct horse battery' }] },
        ),
        response: { 201: AccountUser, ...errorResponses(401, 404, 409, 422) },
      },
    },
    async (request, reply) => {
      const account = await mustGet(request.params.id);
      const { login, password } = request.body;
      const row = await accountUserInsert(ctx.db, {
        accountId: account.id,
        login,
        passwordHash: await ctx.passwords.hash(password),
        now: ctx.clock.now(),
      });
      if (!row) throw herald('loginTaken', { login });
      return reply.status(201).send(userToApi(row));
    },
  );

  app.get(
    '/admin/v1/accounts/:id/users',
    {
      onRequest,
      schema: {
        tags,
        summary: "List the users of the account's personal pages",
        security,
        params: IdParam,
        response: { 200: Type.Object({ items: Type.Array(AccountUser) }), ...errorResponses(401, 404) },
      },
    },
    async (request) => {
      const account = await mustGet(request.params.id);
      return { items: (await accountUserList(ctx.db, account.id)).map(userToApi) };
    },
  );

  app.delete(
    '/admin/v1/accounts/:id/users/:userId',
    {
      onRequest,
      schema: {
        tags,
        summary: 'Delete a user: their sessions end and the API keys they issued are revoked',
        description:
          "Revokes every token that descends from the user's sign-ins: session tokens, keys issued with them, " +
          'and keys issued in turn with those (an API key shows it as `createdByUser`).',
        security,
        params: Type.Object({ id: Id(), userId: Id() }),
        response: { 204: Type.Null(), ...errorResponses(401, 404) },
      },
    },
    async (request, reply) => {
      const { id, userId } = request.params;
      const deleted = await ctx.db.transaction(async (tx) => {
        // Deleting first: a request that is issuing a key of this user holds the user (apiKeyRoutes.ts), so the delete
        // waits for it, and the revocation below sees that key.
        if (!(await accountUserDelete(tx, id, userId))) return false;
        await tokenRevokeMadeBy(tx, id, userId, ctx.clock.now());
        return true;
      });
      if (!deleted) throw herald('notFound', { what: `User ${userId}` });
      return reply.status(204).send(null);
    },
  );

  app.put(
    '/admin/v1/accounts/:id/users/:userId/password',
    {
      onRequest,
      schema: {
        tags,
        summary:
          "Set a user's password (a reset by the operator); " +
          "the user's sessions end and the keys they issued are revoked",
        security,
        params: Type.Object({ id: Id(), userId: Id() }),
        body: Type.Object(
          { password: Password },
          { additionalProperties: false, examples: [{ password: 'весна-2026-лавка' }] },
        ),
        response: { 204: Type.Null(), ...errorResponses(401, 404, 422) },
      },
    },
    async (request, reply) => {
      const { id, userId } = request.params;
      const hash = await ctx.passwords.hash(request.body.password);
      const updated = await ctx.db.transaction(async (tx) => {
        if (!(await accountUserSetPassword(tx, id, userId, hash))) return false;
        // Whoever knew the old password is signed out with it, and loses any key minted with it.
        await tokenRevokeMadeBy(tx, id, userId, ctx.clock.now());
        return true;
      });
      if (!updated) throw herald('notFound', { what: `User ${userId}` });
      return reply.status(204).send(null);
    },
  );
};
