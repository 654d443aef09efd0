import { type AppContext, NO_DIRECT_ROOM } from '../context.js';
import type { Queryable } from '../db/db.js';
import { herald, HeraldError } from '../errors/catalogue.js';
import type { Principal } from '../http/auth.js';
import { idempotentReplay, type IdempotentResult, runIdempotent } from '../idempotency/index.js';
import {
  type Candidate,
  handOver,
  itemError,
  MAX_BATCH,
  type MessageToGenerate,
  type NewMessage,
  newMessageId,
  prepareMessages,
  type SendItem,
  type SendResponse,
  type Sender,
  senderOf,
  type StepOutcome,
  storeMessages,
  storeRefused,
  validationContext,
} from '../messages/index.js';
import { enabledChannels } from '../shared/channels.js';
import { isPlainObject } from '../shared/text.js';
import {
  type CascadeRow,
  type CascadeState,
  cascadeInsertBatch,
  cascadesLockRunning,
  cascadeUpdateBatch,
} from './cascadeSql.js';
import { type ValidCascade, validateCascade } from './validateCascade.js';

export interface CascadeRequest {
  readonly principal: Principal;
  readonly body: unknown;
  readonly idempotencyKey: string | undefined;
}

/**
 * POST /api/v1/message/cascade: validates every cascade (the first invalid one -> 422 with its `index`, and `step`
 * when a step is at fault; nothing stored), then creates each cascade's first step as a send creates a message
 * (channels enabled, priced, funds reserved), the cascades and their first steps in one transaction. Each item's
 * `messageUuid` is the cascade's root: its first step's message.
 */
export async function sendCascades(ctx: AppContext, request: CascadeRequest): Promise<IdempotentResult<SendResponse>> {
  const now = ctx.clock.now();
  const { principal, body } = request;
  const idempotent = { accountId: principal.accountId, operation: 'cascade', key: request.idempotencyKey, body, now };
  const earlier = await idempotentReplay<SendResponse>(ctx.db, idempotent);
  if (earlier) return earlier;

  const cascades = await validateBatch(ctx, principal.accountId, body, now);
  const sender = senderOf(principal);
  const channels = enabledChannels(principal.accountChannels);
  // Every step's channel must be enabled now; the other checks (funds, tariff, chat window) are each step's when
  // it is created.
  const disabled = cascades.map((c) => c.steps.find((s) => !channels[s.message.channelType]));
  // A cascade's id is its root's: its first step's message id.
  const rootIds = cascades.map((_, i) => (disabled[i] ? undefined : newMessageId(now)));
  const firsts = cascades.flatMap((c, i): (MessageToGenerate & { id: string })[] => {
    const id = rootIds[i];
    return id === undefined ? [] : [{ id, message: c.steps[0]!.message, cascade: { id, step: 1 } }];
  });
  const prepared = await prepareMessages(ctx, ctx.db, sender, firsts, undefined, now);
  const candidates = prepared.filter((c): c is Candidate => !(c instanceof HeraldError));

  let stored: NewMessage[] = [];
  const direct = ctx.directDispatch?.open() ?? NO_DIRECT_ROOM;
  try {
    const result = await runIdempotent(ctx.db, idempotent, async (tx) => {
      const results = await storeMessages(tx, ctx, sender, candidates, now, {
        directRoom: direct,
        leaseUntil: new Date(now.getTime() + (ctx.directDispatch?.leaseMs ?? 0)),
        limitCallbackUrls: true,
      });
      stored = results.filter((r): r is NewMessage => !(r instanceof HeraldError));
      const storedIds = new Set(stored.map((r) => r.id));
      await cascadeInsertBatch(tx, {
        accountId: principal.accountId,
        now,
        trafficCenterId: sender.trafficCenterId,
        sendingMethod: sender.sendingMethod,
        currency: sender.currency,
        cascades: cascades.flatMap((c, i) => {
          const id = rootIds[i];
          return id !== undefined && storedIds.has(id) ? [{ id, steps: c.steps }] : [];
        }),
      });
      // Each first step's outcome: refused when prepared, or when stored, or stored.
      const outcomes = new Map<string, HeraldError | NewMessage>();
      prepared.forEach((p, i) => p instanceof HeraldError && outcomes.set(firsts[i]!.id, p));
      candidates.forEach((c, i) => outcomes.set(c.id, results[i]!));
      const items = cascades.map((_, i): SendItem => {
        const step = disabled[i];
        if (step) return itemError(herald('channelNotEnabled', { channelType: step.message.channelType }));
        const outcome = outcomes.get(rootIds[i]!)!;
        return outcome instanceof HeraldError ? itemError(outcome) : { messageUuid: outcome.id, code: 201 };
      });
      return { statusCode: 200, body: { errors: items.some((item) => item.code !== 201), items } };
    });

    if (!result.replayed) handOver(ctx, stored, principal.accountId, direct);
    return result;
  } finally {
    direct.close();
  }
}

async function validateBatch(ctx: AppContext, accountId: number, body: unknown, now: Date): Promise<ValidCascade[]> {
  if (!Array.isArray(body)) throw herald('notAnArray');
  if (body.length === 0) throw herald('emptyBatch');
  if (body.length > MAX_BATCH) throw herald('tooManyMessages');
  const steps = body.flatMap((c: unknown) => (isPlainObject(c) && Array.isArray(c.cascade) ? c.cascade : []));
  const validation = await validationContext(ctx, accountId, steps, now);
  return body.map((item: unknown, index) => {
    try {
      return validateCascade(item, validation);
    } catch (error) {
      if (error instanceof HeraldError) throw error.with({ index });
      throw error;
    }
  });
}

/** What a step's outcome means for its cascade. */
type Decision = 'wait' | 'next' | 'end';

/**
 * A step's outcome against its condition: `not_delivered` moves on when the step ends undelivered or unsent;
 * `not_read` also when it was delivered and then not read in its lifetime; a delivery (for `not_read`, a read)
 * ends the cascade, as does any end of the last step.
 */
export function decide(condition: string | null, outcome: Pick<StepOutcome, 'status' | 'readStatus'>): Decision {
  const failed = outcome.status === 'undelivered' || outcome.status === 'unsent';
  if (condition === null) return failed || outcome.status === 'delivered' ? 'end' : 'wait';
  if (failed) return 'next';
  if (outcome.status !== 'delivered') return 'wait';
  if (condition === 'not_delivered' || outcome.readStatus === 'read') return 'end';
  return outcome.readStatus === 'unread' ? 'next' : 'wait';
}

/**
 * Moves cascades on in the transaction that records their steps' outcomes (delivery calls it: see
 * delivery/outcomeHooks.ts): the next step is created there, or the cascade ends. Exactly once: the cascade's row
 * is locked and says which step is current, and a step's message is unique per cascade and step.
 */
export class CascadeProgress {
  constructor(private readonly ctx: () => AppContext) {}

  async stepsEnded(tx: Queryable, steps: readonly StepOutcome[], now: Date): Promise<void> {
    const ctx = this.ctx();
    const cascades = await cascadesLockRunning(tx, [
      ...new Map(steps.map((s) => [s.cascadeId, { accountId: s.accountId, id: s.cascadeId }])).values(),
    ]);
    const updates: { accountId: number; id: string; currentStep: number; state: CascadeState }[] = [];
    const next: { cascade: CascadeRow; item: MessageToGenerate & { id: string } }[] = [];
    // The latest outcome of each step (a delivery and its read may both be here); a flush holds thousands.
    const latest = new Map<string, StepOutcome>();
    for (const s of steps) latest.set(`${s.cascadeId}/${s.cascadeStep}`, s);
    for (const cascade of cascades) {
      // Its current step's: earlier steps' outcomes are late.
      const outcome = latest.get(`${cascade.id}/${cascade.current_step}`);
      if (!outcome) continue;
      const step = cascade.steps[cascade.current_step - 1]!;
      const decision = decide(step.condition, outcome);
      if (decision === 'wait') continue;
      const following = cascade.steps[cascade.current_step];
      if (decision === 'end' || !following) {
        updates.push({
          accountId: cascade.account_id,
          id: cascade.id,
          currentStep: cascade.current_step,
          state: 'done',
        });
        continue;
      }
      const stepNumber = cascade.current_step + 1;
      next.push({
        cascade,
        item: { id: newMessageId(now), message: following.message, cascade: { id: cascade.id, step: stepNumber } },
      });
    }
    // A dispatch's cascade: its next step belongs to the dispatch, held while it is paused, and none follows once
    // it is stopped.
    const dispatches = await ctx.dispatchStatuses(tx, [
      ...new Map(
        next
          .filter((n) => n.cascade.dispatch_id !== null)
          .map((n) => [n.cascade.dispatch_id, { accountId: n.cascade.account_id, id: n.cascade.dispatch_id! }]),
      ).values(),
    ]);
    for (const n of [...next]) {
      if (n.cascade.dispatch_id === null) continue;
      const status = dispatches.get(n.cascade.dispatch_id);
      if (status === 'stopped') {
        next.splice(next.indexOf(n), 1);
        const { account_id: accountId, id, current_step: currentStep } = n.cascade;
        updates.push({ accountId, id, currentStep, state: 'stopped' });
      } else n.item = { ...n.item, dispatchId: n.cascade.dispatch_id, held: status === 'paused' };
    }
    for (const [accountId, group] of groupBy(next, (n) => n.cascade.account_id)) {
      const cascade = group[0]!.cascade;
      const sender: Sender = {
        accountId,
        currency: cascade.currency,
        trafficCenterId: cascade.traffic_center_id,
        sendingMethod: cascade.sending_method,
      };
      const items = group.map((g) => g.item);
      const prepared = await prepareMessages(ctx, tx, sender, items, undefined, now);
      const refused: { item: (typeof items)[number]; error: HeraldError }[] = [];
      const candidates: Candidate[] = [];
      const ended = new Set<string>();
      prepared.forEach((p, i) => {
        if (p instanceof HeraldError) refused.push({ item: items[i]!, error: p });
        // Past localCompletionTime (or a window that never opens again) no further step is created.
        else if (p.plannedSendAt === null) ended.add(group[i]!.cascade.id);
        else candidates.push(p);
      });
      const results = await storeMessages(tx, ctx, sender, candidates, now, {
        directRoom: NO_DIRECT_ROOM,
        leaseUntil: now,
        limitCallbackUrls: false,
      });
      const itemsById = new Map(items.map((it) => [it.id, it]));
      results.forEach((r, i) => {
        if (r instanceof HeraldError) refused.push({ item: itemsById.get(candidates[i]!.id)!, error: r });
      });
      // A step refused at its creation (4020 and the like) is stored unsent, with its callbacks, and ends the cascade.
      await storeRefused(tx, ctx, sender, refused, now);
      for (const r of refused) ended.add(r.item.cascade!.id);
      const refusedIds = new Set(refused.map((r) => r.item.id));
      for (const { cascade: c, item } of group) {
        const done = ended.has(c.id);
        const created = !done || refusedIds.has(item.id);
        updates.push({
          accountId,
          id: c.id,
          currentStep: created ? item.cascade!.step : c.current_step,
          state: done ? 'done' : 'running',
        });
      }
    }
    await cascadeUpdateBatch(tx, updates, now);
  }

  /** New steps are waiting: the dispatcher of this process claims them at once. */
  committed(): void {
    this.ctx().wakeup.notify();
  }
}

function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}
