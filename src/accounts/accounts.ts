import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/db.js';
import { enabledChannels } from '../shared/channels.js';
import { effectiveGuard } from '../shared/guardSettings.js';
import { herald } from '../errors/catalogue.js';
import { isoUtc } from '../util/time.js';
import type { AccountJson, ApiKeyRequestJson, TokenJson } from './accountSchemas.js';
import { type AccountRow, accountGet, accountInsert } from './accountSql.js';
import { balanceGet } from './ledgerSql.js';
import { type SessionMark, tokenInsert, type TokenMaker, type TokenRow } from './tokenSql.js';
import { trafficCenterDefault, trafficCenterHold } from './trafficCenterSql.js';
import { issueToken, type TokenType } from './tokens.js';

export function newCallbackSecret(): string {
  return randomBytes(32).toString('hex');
}

export interface CreatedAccount {
  readonly account: AccountRow;
  readonly tokens: { readonly traffic: string; readonly system: string };
}

/**
 * Creates an account with its default traffic center and one traffic and one system token; call inside
 * a transaction.
 */
export async function createAccount(
  tx: Queryable,
  input: { name: string; currency: string; creditLimit?: number | undefined },
  now: Date,
): Promise<CreatedAccount> {
  const account = await accountInsert(tx, {
    name: input.name,
    currency: input.currency,
    creditLimit: input.creditLimit ?? 0,
    callbackSecret: newCallbackSecret(),
    now,
  });
  await trafficCenterDefault(tx, account.id, now);
  const traffic = await createToken(tx, account.id, 'traffic', null, now);
  const system = await createToken(tx, account.id, 'system', null, now);
  return { account, tokens: { traffic: traffic.token, system: system.token } };
}

/**
 * Issues a token of the account: an API key, or with `session` one of a web sign-in's two tokens (sessions.ts).
 * `maker` records the user it descends from and the session that issued it (tokenSql.ts TokenMaker).
 */
export async function createToken(
  db: Queryable,
  accountId: number,
  type: TokenType,
  trafficCenterId: number | null,
  now: Date,
  session?: SessionMark,
  maker?: TokenMaker,
): Promise<{ row: TokenRow; token: string }> {
  const issued = issueToken(type);
  const row = await tokenInsert(db, {
    id: issued.id,
    accountId,
    type,
    secretHash: issued.secretHash,
    trafficCenterId,
    now,
    ...(session ? { session } : {}),
    ...(maker ? { maker } : {}),
  });
  return { row, token: issued.token };
}

/**
 * Issues an API key of the account; a traffic key may be bound to one of the account's own traffic centers.
 * Throws 422 4220 for a center given to a system key, or one that is missing or another account's. Call in a
 * transaction: it holds the center until the key is written, so that a concurrent delete of the center sees the key.
 * `maker`: see createToken (none for the operator's keys).
 */
export async function issueApiKey(
  db: Queryable,
  accountId: number,
  request: ApiKeyRequestJson,
  now: Date,
  maker?: TokenMaker,
): Promise<{ row: TokenRow; token: string }> {
  const { type, trafficCenterId } = request;
  if (trafficCenterId !== undefined) {
    if (type !== 'traffic')
      throw herald('invalidField', { field: 'trafficCenterId', value: 'only traffic keys are bound to a center' });
    if (!(await trafficCenterHold(db, accountId, trafficCenterId))) {
      throw herald('invalidField', { field: 'trafficCenterId', value: `${trafficCenterId} (no such center)` });
    }
  }
  return createToken(db, accountId, type, trafficCenterId ?? null, now, undefined, maker);
}

/** The balance object of the API: currency code -> number, always including the account's own currency. */
export async function balanceOf(db: Queryable, accountId: number, currency: string): Promise<Record<string, number>> {
  const balance: Record<string, number> = { [currency]: 0 };
  for (const row of await balanceGet(db, accountId)) balance[row.currency] = Number(row.amount);
  return balance;
}

export async function accountToApi(db: Queryable, row: AccountRow): Promise<AccountJson> {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    currency: row.currency,
    channels: enabledChannels(row.channels),
    inbound: row.inbound_enabled,
    creditLimit: Number(row.credit_limit),
    maxRate: row.max_rate,
    smppBinds: row.smpp_binds,
    inboundVia: row.inbound_via as 'smpp'[],
    callbackSecret: row.callback_secret,
    settings: {
      operator: row.guard_operator,
      client: row.guard_client,
      effective: effectiveGuard(row.guard_operator, row.guard_client),
    },
    balance: await balanceOf(db, row.id, row.currency),
    createdAt: isoUtc(row.created_at)!,
    updatedAt: isoUtc(row.updated_at)!,
  };
}

export function tokenToApi(row: TokenRow): TokenJson {
  return {
    id: row.id,
    type: row.type,
    trafficCenterId: row.traffic_center_id,
    createdAt: isoUtc(row.created_at)!,
    revokedAt: isoUtc(row.revoked_at),
    createdByUser: row.created_by_user,
  };
}

export { accountGet };

/** The account, or 404 4040 for an operator operation on an id that names none. */
export async function accountGetOr404(db: Queryable, id: number): Promise<AccountRow> {
  const account = await accountGet(db, id);
  if (!account) throw herald('notFound', { what: `Account ${id}` });
  return account;
}
