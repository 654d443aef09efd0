import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AppContext } from '../context.js';
import { cascadesStop, startCascade, type StoredStep } from '../cascades/index.js';
import type { Db, Queryable } from '../db/db.js';
import { herald } from '../errors/catalogue.js';
import {
  idempotentAfterRace,
  idempotentRecord,
  idempotentReplay,
  type IdempotentResult,
} from '../idempotency/index.js';
import type { Principal } from '../accounts/index.js';
import { conversionUpsert } from '../conversions/index.js';
import { pumpingProofs } from '../fraud/index.js';
import { DELIVERY_ERRORS, messageCascadeSteps, type MessageRow, messageStop } from '../messages/index.js';
import { senderOf } from '../sending/index.js';
import { type Channel, enabledChannels } from '../shared/channels.js';
import {
  verificationInsert,
  verificationLock,
  verificationLockDestination,
  verificationLockPending,
  verificationRecentSends,
  verificationRecordCheck,
  type VerificationRow,
  verificationsClaimExpired,
  verificationsEnd,
  type VerificationKey,
  type VerificationState,
  verifyKeyGet,
} from './verificationSql.js';
import { cascadeOf, newCode, settingsOfRow } from './verifiers.js';
import { verifierGet } from './verifierSql.js';

/** At most 5 sends to one destination through one verifier in 10 minutes (DESIGN 16). */
export const SENDS_PER_DESTINATION = 5;
export const SEND_WINDOW_MS = 10 * 60_000;

export const CHECK_STATUSES = ['CONFIRMED', 'WRONG_CODE', 'EXPIRED', 'NOT_FOUND'] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];

/**
 * Codes are never stored: only HMAC-SHA256(key, "<uuid>:<code>"), the key kept in its own table and read once per
 * process (before any transaction of a send or check: the embedded database has one connection, which the
 * transaction holds). Binding the uuid in makes each code's HMAC its own: two sends of one code store different values.
 */
export class CodeHasher {
  private key: Promise<Buffer> | undefined;

  constructor(private readonly ctx: Pick<AppContext, 'db' | 'clock'>) {}

  /** The means to HMAC codes, with the key read (once) from the database. */
  async ready(): Promise<{
    hmac(id: string, code: string): Buffer;
    matches(id: string, code: string, stored: Uint8Array): boolean;
  }> {
    this.key ??= verifyKeyGet(this.ctx.db, this.ctx.clock.now()).catch((error: unknown) => {
      this.key = undefined;
      throw error;
    });
    const key = await this.key;
    const hmac = (id: string, code: string) => createHmac('sha256', key).update(`${id}:${code}`).digest();
    return {
      hmac,
      // Compared in constant time.
      matches: (id, code, stored) => {
        const presented = hmac(id, code);
        return presented.length === stored.length && timingSafeEqual(presented, stored);
      },
    };
  }
}

export interface SendRequest {
  readonly gatewayId: string;
  readonly destination: string;
  /** Only the steps of this channel (the real service's clients name one). */
  readonly channelType?: Channel | undefined;
}

/**
 * POST /api/v1/verifier/send: makes a code (CSPRNG) and sends it through the verifier's workflow as a cascade of
 * AUTHORIZE messages whose steps move on when not delivered or when their timeout passes unconfirmed, and whose
 * last step is created before the code expires. In one transaction: the send limit per destination and verifier
 * (429 4290), the replacement of the destination's pending code (its cascade and unsent steps stopped), the
 * verification and the first step. Returns the uuid the code is checked with. With an `Idempotency-Key`, a retry
 * gets the first answer (recorded in the same transaction) and sends no second code.
 */
export async function sendCode(
  ctx: AppContext,
  hasher: CodeHasher,
  principal: Principal,
  request: SendRequest,
  idempotencyKey: string | undefined,
): Promise<IdempotentResult<{ uuid: string }>> {
  const now = ctx.clock.now();
  const { accountId } = principal;
  const idempotent = { accountId, operation: 'verifier-send', key: idempotencyKey, body: request, now };
  const earlier = await idempotentReplay<{ uuid: string }>(ctx.db, idempotent);
  if (earlier) return earlier;
  const verifier = await verifierGet(ctx.db, accountId, request.gatewayId);
  if (!verifier) throw herald('notFound', { what: `Verifier ${request.gatewayId}` });
  const all = settingsOfRow(verifier);
  const workflow = request.channelType
    ? all.workflow.filter((s) => s.channelType === request.channelType)
    : all.workflow;
  if (workflow.length === 0)
    throw herald('invalidField', { field: 'channelType', value: `${request.channelType} (not in the workflow)` });
  const settings = { ...all, workflow };
  const code = newCode(settings.codeLength);
  const cascade = await cascadeOf(ctx, accountId, settings, request.destination, code, now);
  const steps: StoredStep[] = cascade.steps.map((step, i) => ({ ...step, timeout: workflow[i]!.timeout }));
  const destination = steps[0]!.message.destination;
  const expiresAt = new Date(now.getTime() + settings.codeTtl * 1000);
  const key = { accountId, gatewayId: verifier.gateway_id, destination };
  const codes = await hasher.ready();

  try {
    const { id } = await startCascade(
      ctx,
      {
        sender: senderOf(principal),
        channels: enabledChannels(principal.accountChannels),
        steps,
        stepsUntil: expiresAt,
      },
      async (tx, id) => {
        await verificationLockDestination(tx, accountId, key.gatewayId, destination);
        const recent = await verificationRecentSends(tx, key, new Date(now.getTime() - SEND_WINDOW_MS));
        if (recent.count >= SENDS_PER_DESTINATION) {
          const free = recent.oldest!.getTime() + SEND_WINDOW_MS - now.getTime();
          throw herald('tooManyRequests', { retryAfter: Math.max(1, Math.ceil(free / 1000)) });
        }
        const pending = await verificationLockPending(tx, key);
        await endCodes(
          tx,
          pending.map((id) => ({ accountId, id })),
          'replaced',
          now,
        );
        await verificationInsert(tx, {
          ...key,
          id,
          codeHmac: codes.hmac(id, code),
          createdAt: now,
          expiresAt,
          maxChecks: settings.maxChecks,
        });
        await idempotentRecord(tx, idempotent, { statusCode: 200, body: { uuid: id } });
      },
    );
    return { statusCode: 200, body: { uuid: id }, replayed: false };
  } catch (error) {
    return idempotentAfterRace<{ uuid: string }>(ctx.db, idempotent, error);
  }
}

/**
 * POST /api/v1/verifier/check: NOT_FOUND for a uuid the account has not sent (another account's included);
 * EXPIRED once the code's lifetime has passed, after its maxChecks checks, or when a newer send replaced it;
 * CONFIRMED for the right code, and again for the right code until the code expires; WRONG_CODE otherwise. Every
 * check of a pending code counts toward maxChecks. The check that confirms the code, or that uses it up, ends it
 * ({@link endCodes}).
 */
export async function checkCode(
  ctx: AppContext,
  hasher: CodeHasher,
  accountId: number,
  request: { uuid: string; code: string },
): Promise<CheckStatus> {
  const now = ctx.clock.now();
  const codes = await hasher.ready();
  return ctx.db.transaction(async (tx) => {
    const row = await verificationLock(tx, accountId, request.uuid);
    if (!row) return 'NOT_FOUND';
    if (row.state === 'pending' && usedUp(row, now)) {
      // Expired before the expiry job came to it.
      await endCodes(tx, [{ accountId, id: row.id }], 'expired', now);
      return 'EXPIRED';
    }
    if (row.state === 'replaced' || row.state === 'expired' || now >= row.expires_at) return 'EXPIRED';
    const right = codes.matches(row.id, request.code, row.code_hmac);
    if (row.state === 'confirmed') return right ? 'CONFIRMED' : 'WRONG_CODE';
    if (!right) {
      await verificationRecordCheck(tx, accountId, row.id, null);
      // The last check it had: the workflow stops now, not at the next guess.
      if (usedUp({ ...row, checks: row.checks + 1 }, now))
        await endCodes(tx, [{ accountId, id: row.id }], 'expired', now);
      return 'WRONG_CODE';
    }
    await endCodes(tx, [{ accountId, id: row.id }], 'confirmed', now);
    // A confirmed code is a real subscriber: proof of real traffic on its range (fraud/, pumping).
    await pumpingProofs(tx, accountId, [row.destination], now);
    const steps = await messageCascadeSteps(tx, accountId, row.id);
    // Sent: what left Herald (steps stopped by this confirmation end unsent).
    const sent = steps.filter((m) => m.status !== 'unsent');
    // The code came through the last step that left Herald (the first, if none did: a guess, or a fast reader).
    const channel = (sent.at(-1) ?? steps[0])?.channel_type ?? null;
    await verificationRecordCheck(tx, accountId, row.id, { at: now, channel });
    await recordFlashcallConversions(tx, accountId, sent, now);
    return 'CONFIRMED';
  });
}

/**
 * Records a confirmed code's flash calls that reached the phone as NUMBER_VERIFIED conversions, as a client would
 * report them (POST /api/v1/flashcall-conversion): the carrier's FLASHCALL quality depends on them (spec 3). A call
 * that was not delivered, or never placed, verified nothing.
 */
async function recordFlashcallConversions(
  tx: Queryable,
  accountId: number,
  sent: readonly MessageRow[],
  now: Date,
): Promise<void> {
  const calls = sent.filter((m) => m.channel_type === 'FLASHCALL' && m.status !== 'undelivered');
  await conversionUpsert(
    tx,
    accountId,
    calls.map((m) => ({ messageId: m.id, result: 'NUMBER_VERIFIED', code: null })),
    now,
  );
}

/** Whether a code can no longer be confirmed: past its codeTtl, or its maxChecks checks made. */
function usedUp(row: Pick<VerificationRow, 'expires_at' | 'checks' | 'max_checks'>, now: Date): boolean {
  return now >= row.expires_at || row.checks >= row.max_checks;
}

/**
 * Ends the pending codes among `codes` (locked by the caller): the one way a code stops being pending, be it
 * confirmed, replaced by a newer send, used up by its maxChecks checks or past its codeTtl. What is left of an ended
 * code's workflow (its cascade) stops with it: its steps not yet handed to a carrier end unsent (9003), refunded,
 * and no later step is created. Every account's messages first, then the cascades, each by account in turn: the
 * global order of those locks, which the delivery writer takes too.
 */
async function endCodes(
  tx: Queryable,
  codes: readonly VerificationKey[],
  state: Exclude<VerificationState, 'pending'>,
  now: Date,
): Promise<void> {
  if (codes.length === 0) return;
  const ended = new Map<number, string[]>();
  for (const code of await verificationsEnd(tx, codes, state))
    ended.set(code.accountId, [...(ended.get(code.accountId) ?? []), code.id]);
  const accounts = [...ended.keys()].sort((a, b) => a - b);
  for (const accountId of accounts)
    await messageStop(tx, accountId, ended.get(accountId)!, now, DELIVERY_ERRORS.stopped);
  for (const accountId of accounts) await cascadesStop(tx, accountId, ended.get(accountId)!, now);
}

/**
 * Ends the pending codes whose codeTtl has passed at `now` (up to `limit`, in one transaction), as a check would
 * find them: a step still queued (a FLASHCALL step has no lifetime of its own) is not sent for a code that can no
 * longer be confirmed. Returns how many it took; codes a check or a send holds are left to the next pass.
 */
export async function expireCodes(db: Db, now: Date, limit: number): Promise<number> {
  return db.transaction(async (tx) => {
    const codes = await verificationsClaimExpired(tx, now, limit);
    await endCodes(tx, codes, 'expired', now);
    return codes.length;
  });
}
