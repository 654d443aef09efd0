import { type AppContext, type DirectHandOver, NO_DIRECT_ROOM } from '../context.js';
import type { Db, Queryable } from '../db/db.js';
import { herald, HeraldError } from '../errors/catalogue.js';
import { accountGuardGet, type Principal } from '../accounts/index.js';
import { idempotentReplay, type IdempotentResult } from '../idempotency/index.js';
import {
  type Candidate,
  handLeased,
  handOver,
  itemError,
  MAX_BATCH,
  messageRowBytes,
  type MessageToGenerate,
  newMessageId,
  prepareMessages,
  type SendItem,
  type SendResponse,
  type Sender,
  senderOf,
  storeBatch,
  storeMessages,
  storeRefused,
  validationContext,
} from '../sending/index.js';
import { type NewMessage, type StepOutcome } from '../messages/index.js';
import { NO_STEPS_CREATED, type OutcomeHooks, type StepsCreated } from '../delivery/index.js';
import { type Channel, enabledChannels } from '../shared/channels.js';
import { isPlainObject } from '../shared/text.js';
import { mapInSlices } from '../util/turns.js';
import {
  type CascadeRow,
  cascadeInsertBatch,
  cascadesClaimTimedOut,
  cascadesLockRunning,
  type CascadeUpdate,
  cascadeUpdateBatch,
  type StoredStep,
} from './cascadeSql.js';
import type { DispatchStatuses } from './dispatchStatuses.js';
import { type ValidCascade, validateCascade } from './validateCascade.js';

export interface CascadeRequest {
  readonly principal: Principal;
  readonly body: unknown;
  readonly idempotencyKey: string | undefined;
}

/**
 * POST /api/v1/message/cascade: validates every cascade (the first invalid one -> 422 with its `index`, and `step`
 * when a step is at fault; nothing stored), then creates each cascade's first step as a send creates a message
 * (channels enabled, priced, funds reserved), the cascades and their first steps in one transaction (a batch of
 * large rows in slices: see storeBatch). Each item's
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
  // Each cascade's first step prepared, or why it was refused.
  const firstOf = new Map<string, Candidate | HeraldError>(firsts.map((f, i) => [f.id, prepared[i]!]));
  const direct = ctx.directSubmit?.open() ?? NO_DIRECT_ROOM;
  const exhausted = new Set<string>();
  let stored: NewMessage[] = [];
  const store = async (tx: Queryable, start: number, end: number): Promise<SendItem[]> => {
    const ids = rootIds.slice(start, end);
    const candidates = ids.flatMap((id) => {
      const first = id === undefined ? undefined : firstOf.get(id);
      return first === undefined || first instanceof HeraldError ? [] : [first];
    });
    const results = await storeMessages(tx, ctx, sender, candidates, now, {
      directRoom: direct,
      leaseUntil: new Date(now.getTime() + (ctx.directSubmit?.leaseMs ?? 0)),
      limitCallbackUrls: true,
      exhausted,
    });
    stored = results.filter((r): r is NewMessage => !(r instanceof HeraldError));
    const storedIds = new Set(stored.map((r) => r.id));
    await cascadeInsertBatch(tx, {
      accountId: principal.accountId,
      now,
      trafficCenterId: sender.trafficCenterId,
      sendingMethod: sender.sendingMethod,
      currency: sender.currency,
      cascades: ids.flatMap((id, i) =>
        id !== undefined && storedIds.has(id) ? [{ id, steps: cascades[start + i]!.steps }] : [],
      ),
    });
    // Each first step's outcome: refused when prepared, or when stored, or stored.
    const outcomes = new Map<string, HeraldError | NewMessage>(candidates.map((c, i) => [c.id, results[i]!]));
    return ids.map((id, i): SendItem => {
      const step = disabled[start + i];
      if (step) return itemError(herald('channelNotEnabled', { channelType: step.message.channelType }));
      const outcome = outcomes.get(id!) ?? firstOf.get(id!)!;
      return outcome instanceof HeraldError ? itemError(outcome) : { messageUuid: outcome.id, code: 201 };
    });
  };
  try {
    return await storeBatch(
      ctx,
      idempotent,
      { count: cascades.length, store, committed: () => handOver(ctx, stored, principal.accountId, direct) },
      (i) => cascades[i]!.steps.reduce((bytes, step) => bytes + messageRowBytes(step.message), 0),
    );
  } finally {
    direct.close();
  }
}

/** Cascades validated between turns of the event loop: 100 of 6 long steps take 6-12 ms. */
const VALIDATION_SLICE = 100;

async function validateBatch(ctx: AppContext, accountId: number, body: unknown, now: Date): Promise<ValidCascade[]> {
  if (!Array.isArray(body)) throw herald('notAnArray');
  if (body.length === 0) throw herald('emptyBatch');
  if (body.length > MAX_BATCH) throw herald('tooManyMessages');
  const steps = body.flatMap((c: unknown) => (isPlainObject(c) && Array.isArray(c.cascade) ? c.cascade : []));
  const validation = await validationContext(ctx, accountId, steps, now);
  return mapInSlices(body as unknown[], VALIDATION_SLICE, (item, index) => {
    try {
      return validateCascade(item, validation);
    } catch (error) {
      if (error instanceof HeraldError) throw error.with({ index });
      throw error;
    }
  });
}

/**
 * Starts one cascade for another capability (verify/): its first step is created as a send creates a message
 * (channel enabled, priced, funds reserved), the cascade and that step stored in one transaction, in which
 * `within(tx, id)` runs first with the cascade's id (its root's). A first step that cannot be created throws its
 * error (4020, 4031 ...) and nothing is stored. Steps with a `timeout` move on when it passes (see {@link decide});
 * no step is created from `stepsUntil` on.
 */
export async function startCascade<T>(
  ctx: AppContext,
  start: {
    readonly sender: Sender;
    readonly channels: Readonly<Record<Channel, boolean>>;
    readonly steps: readonly StoredStep[];
    readonly stepsUntil: Date | null;
  },
  within: (tx: Queryable, id: string) => Promise<T>,
): Promise<{ id: string; result: T }> {
  const now = ctx.clock.now();
  const first = start.steps[0]!;
  const id = newMessageId(now);
  const [prepared] = await prepareMessages(
    ctx,
    ctx.db,
    start.sender,
    [{ id, message: first.message, cascade: { id, step: 1 } }],
    start.channels,
    now,
  );
  if (prepared instanceof HeraldError) throw prepared;
  let stored: NewMessage | undefined;
  const direct = ctx.directSubmit?.open() ?? NO_DIRECT_ROOM;
  try {
    const result = await ctx.db.transaction(async (tx) => {
      const result = await within(tx, id);
      const [outcome] = await storeMessages(tx, ctx, start.sender, [prepared!], now, {
        directRoom: direct,
        leaseUntil: new Date(now.getTime() + (ctx.directSubmit?.leaseMs ?? 0)),
        limitCallbackUrls: true,
      });
      if (outcome instanceof HeraldError) throw outcome;
      stored = outcome;
      await cascadeInsertBatch(tx, {
        accountId: start.sender.accountId,
        now,
        trafficCenterId: start.sender.trafficCenterId,
        sendingMethod: start.sender.sendingMethod,
        currency: start.sender.currency,
        cascades: [
          { id, steps: start.steps, stepTimeoutAt: timeoutOf(start.steps, 1, now), stepsUntil: start.stepsUntil },
        ],
      });
      return result;
    });
    handOver(ctx, stored ? [stored] : [], start.sender.accountId, direct);
    return { id, result };
  } finally {
    direct.close();
  }
}

/** When step `step` (1-based) created at `now` times out: null for a step without a timeout, or the last one. */
function timeoutOf(steps: readonly StoredStep[], step: number, now: Date): Date | null {
  const timeout = steps[step - 1]?.timeout;
  return timeout === undefined || step >= steps.length ? null : new Date(now.getTime() + timeout * 1000);
}

/** What a step's outcome means for its cascade. */
type Decision = 'wait' | 'next' | 'end';

/**
 * A step's outcome against its condition: `not_delivered` moves on when the step ends undelivered or unsent;
 * `not_read` also when it was delivered and then not read in its lifetime; a delivery (for `not_read`, a read)
 * ends the cascade, as does any end of the last step. A step with a timeout (`timed`, not the last) is not ended by
 * a delivery: it waits for its timeout, at which the next step follows unless the cascade was stopped first.
 */
export function decide(
  condition: string | null,
  outcome: Pick<StepOutcome, 'status' | 'readStatus'>,
  timed = false,
): Decision {
  const failed = outcome.status === 'undelivered' || outcome.status === 'unsent';
  if (condition === null) return failed || outcome.status === 'delivered' ? 'end' : 'wait';
  if (failed) return 'next';
  if (outcome.status !== 'delivered' || timed) return 'wait';
  if (condition === 'not_delivered' || outcome.readStatus === 'read') return 'end';
  return outcome.readStatus === 'unread' ? 'next' : 'wait';
}

/**
 * Moves cascades on in the transaction that records their steps' outcomes (delivery calls it: see
 * delivery/outcomeHooks.ts): the next step is created there, or the cascade ends. Exactly once: the cascade's row
 * is locked and says which step is current, and a step's key is unique per cascade and step (message_keys).
 */
export class CascadeProgress implements OutcomeHooks {
  constructor(
    private readonly ctx: () => AppContext,
    private readonly dispatchStatuses: DispatchStatuses,
  ) {}

  async stepsEnded(tx: Queryable, steps: readonly StepOutcome[], now: Date): Promise<StepsCreated> {
    const cascades = await cascadesLockRunning(tx, [
      ...new Map(steps.map((s) => [s.cascadeId, { accountId: s.accountId, id: s.cascadeId }])).values(),
    ]);
    const updates: CascadeUpdate[] = [];
    const next: CascadeRow[] = [];
    // The latest outcome of each step (a delivery and its read may both be here); a flush holds thousands.
    const latest = new Map<string, StepOutcome>();
    for (const s of steps) latest.set(`${s.cascadeId}/${s.cascadeStep}`, s);
    for (const cascade of cascades) {
      // Its current step's: earlier steps' outcomes are late.
      const outcome = latest.get(`${cascade.id}/${cascade.current_step}`);
      if (!outcome) continue;
      const step = cascade.steps[cascade.current_step - 1]!;
      const decision = decide(step.condition, outcome, step.timeout !== undefined);
      if (decision === 'wait') continue;
      if (decision === 'end') updates.push(ended(cascade));
      else next.push(cascade);
    }
    return this.moveOn(tx, next, updates, now);
  }

  /**
   * Moves on the running cascades whose current step has timed out (up to `limit`, in one transaction); returns
   * how many it took. A cascade whose step's outcome is being recorded meanwhile is left to the next pass.
   */
  async timeoutsDue(db: Db, now: Date, limit: number): Promise<number> {
    let created = NO_STEPS_CREATED;
    try {
      const taken = await db.transaction(async (tx) => {
        const cascades = await cascadesClaimTimedOut(tx, now, limit);
        created = await this.moveOn(tx, cascades, [], now);
        return cascades.length;
      });
      created.committed();
      return taken;
    } finally {
      created.close();
    }
  }

  /**
   * Creates the next step of each locked cascade in `cascades` (or ends it: no step left, past `steps_until`, past
   * the window's end, its dispatch stopped, or a step refused at its creation), and records `updates` with them.
   * The new steps due now are stored leased to this process's submitter as far as it has room, and handed to it
   * once the transaction commits (see {@link StepsCreated}), instead of waiting for its next claim.
   */
  private async moveOn(
    tx: Queryable,
    cascades: readonly CascadeRow[],
    updates: CascadeUpdate[],
    now: Date,
  ): Promise<StepsCreated> {
    const ctx = this.ctx();
    const direct = ctx.directSubmit?.open() ?? NO_DIRECT_ROOM;
    try {
      const stored = await this.createSteps(ctx, tx, cascades, updates, now, direct);
      return this.settle(ctx, stored, direct);
    } catch (error) {
      direct.close();
      throw error;
    }
  }

  /** What {@link moveOn} created, handed over after the commit: the leased steps directly, the others by a claim. */
  private settle(ctx: AppContext, stored: StoredSteps[], direct: DirectHandOver): StepsCreated {
    if (stored.length === 0) {
      direct.close();
      return NO_STEPS_CREATED;
    }
    let open = true;
    return {
      committed: () => {
        if (!open) return;
        open = false;
        try {
          let handed = 0;
          let total = 0;
          for (const { accountId, rows } of stored) {
            handed += handLeased(rows, accountId, direct);
            total += rows.length;
          }
          if (handed < total) ctx.wakeup.notify();
        } finally {
          direct.close();
        }
      },
      close: () => {
        if (!open) return;
        open = false;
        direct.close();
      },
    };
  }

  private async createSteps(
    ctx: AppContext,
    tx: Queryable,
    cascades: readonly CascadeRow[],
    updates: CascadeUpdate[],
    now: Date,
    direct: DirectHandOver,
  ): Promise<StoredSteps[]> {
    const created: StoredSteps[] = [];
    // A step on a stop list moves its cascade on at once: the following steps are created in rounds, one per step.
    for (let round = cascades; round.length > 0;)
      round = await this.createNextSteps(ctx, tx, round, updates, created, now, direct);
    await cascadeUpdateBatch(tx, updates, now);
    return created;
  }

  /**
   * Creates the next step of each cascade (see {@link createSteps}) into `created` and `updates`; returns the
   * cascades whose new step was on a stop list (stored unsent, 453) and whose condition moves on after it.
   */
  private async createNextSteps(
    ctx: AppContext,
    tx: Queryable,
    cascades: readonly CascadeRow[],
    updates: CascadeUpdate[],
    created: StoredSteps[],
    now: Date,
    direct: DirectHandOver,
  ): Promise<CascadeRow[]> {
    const listedOn: CascadeRow[] = [];
    const next: { cascade: CascadeRow; item: MessageToGenerate & { id: string } }[] = [];
    for (const cascade of cascades) {
      const following = cascade.steps[cascade.current_step];
      if (!following || (cascade.steps_until !== null && now >= cascade.steps_until)) {
        updates.push(ended(cascade));
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
    const dispatches = await this.dispatchStatuses.readShared(tx, [
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
        updates.push(Object.assign(ended(n.cascade), { state: 'stopped' as const }));
      } else n.item = Object.assign({}, n.item, { dispatchId: n.cascade.dispatch_id, held: status === 'paused' });
    }
    for (const [accountId, group] of groupBy(next, (n) => n.cascade.account_id)) {
      const cascade = group[0]!.cascade;
      const sender: Sender = {
        accountId,
        currency: cascade.currency,
        trafficCenterId: cascade.traffic_center_id,
        sendingMethod: cascade.sending_method,
        // A later step has no token to bring its account's guard settings: one read per account of the tick.
        guard: (await accountGuardGet(tx, accountId))?.effective,
      };
      const items = group.map((g) => g.item);
      const prepared = await prepareMessages(ctx, tx, sender, items, undefined, now);
      const refused: { item: (typeof items)[number]; error: HeraldError }[] = [];
      const candidates: Candidate[] = [];
      const over = new Set<string>();
      prepared.forEach((p, i) => {
        if (p instanceof HeraldError) refused.push({ item: items[i]!, error: p });
        // Past localCompletionTime (or a window that never opens again) no further step is created. A step held
        // while its dispatch is paused has no plan until the resume.
        else if (p.plannedSendAt === null && !p.held) over.add(group[i]!.cascade.id);
        else candidates.push(p);
      });
      const results = await storeMessages(tx, ctx, sender, candidates, now, {
        directRoom: direct,
        leaseUntil: new Date(now.getTime() + (ctx.directSubmit?.leaseMs ?? 0)),
        limitCallbackUrls: false,
      });
      const itemsById = new Map(items.map((it) => [it.id, it]));
      const rows: NewMessage[] = [];
      results.forEach((r, i) => {
        if (r instanceof HeraldError) refused.push({ item: itemsById.get(candidates[i]!.id)!, error: r });
        else rows.push(r);
      });
      if (rows.length > 0) created.push({ accountId, rows });
      // A step refused at its creation (4020 and the like) is stored unsent, with its callbacks, and ends the cascade
      // (one on a stop list: unsent 453, and its condition decides, as for any unsent step).
      await storeRefused(tx, ctx, sender, refused, now);
      for (const r of refused) over.add(r.item.cascade!.id);
      const refusedIds = new Set(refused.map((r) => r.item.id));
      const listed = new Set(refused.filter((r) => r.error.errorName === 'stopListed').map((r) => r.item.id));
      for (const { cascade: c, item } of group) {
        // Unsent as a step that failed: its condition says whether the cascade goes on.
        const listedStep = item.cascade!.step;
        if (listed.has(item.id) && decide(c.steps[listedStep - 1]!.condition, UNSENT) === 'next') {
          listedOn.push(Object.assign({}, c, { current_step: listedStep }));
          continue;
        }
        const done = over.has(c.id);
        const created = !done || refusedIds.has(item.id);
        const step = created ? item.cascade!.step : c.current_step;
        updates.push({
          accountId,
          id: c.id,
          currentStep: step,
          state: done ? 'done' : 'running',
          stepTimeoutAt: done ? null : timeoutOf(c.steps, step, now),
        });
      }
    }
    return listedOn;
  }
}

/** The steps of one account that a transaction created. */
interface StoredSteps {
  readonly accountId: number;
  readonly rows: readonly NewMessage[];
}

/** The outcome of a step stored unsent at its creation. */
const UNSENT = { status: 'unsent', readStatus: null } as const;

/** The update that ends a cascade at its current step. */
const ended = (cascade: CascadeRow): CascadeUpdate => ({
  accountId: cascade.account_id,
  id: cascade.id,
  currentStep: cascade.current_step,
  state: 'done',
});

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
