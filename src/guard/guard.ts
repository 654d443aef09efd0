import { hash } from 'node:crypto';
import type { Queryable } from '../db/db.js';
import { herald, HeraldError } from '../errors/catalogue.js';
import type { ValidMessage } from '../messages/index.js';
import { fromMicros, type Micros, toMicros } from '../money/index.js';
import type { Subscriber } from '../numbering/index.js';
import type { GuardSettings } from '../shared/guardSettings.js';
import { consentScopesOf } from './consentSql.js';
import { floodAppend, floodTakeBack } from './floodSql.js';
import { geoVerdict } from './geo.js';
import { spendAdd, spendOfDayLocked } from './spendSql.js';

/** The metric of refusals and monitored messages (metrics/: herald_refusals_total). */
export interface RefusalCounter {
  inc(labels: { code: string; outcome: 'refused' | 'monitored' }, value?: number): void;
}

/** A message at generation: what it is and where it goes. */
export interface GuardedItem {
  readonly message: ValidMessage;
  readonly subscriber: Subscriber;
  /**
   * Sent to a country the geo rule monitors (4035 in monitor mode): counted as such by the transaction that stores it
   * (storeMessages), so a batch that fails and is sent again, or a message refused later, is not counted.
   */
  readonly monitored?: boolean;
}

/**
 * The checks of generation that read and lock nothing (DESIGN 20): the geo rule (4035; in monitor mode the message
 * goes on, marked {@link GuardedItem.monitored}) and consent (4034), for a whole batch with at most one query (the
 * consents of the batch's numbers, when a traffic type requires one). Returns the items with those refused replaced
 * by their errors.
 */
export async function guardAtGeneration<T extends GuardedItem>(
  db: Queryable,
  accountId: number,
  guard: GuardSettings,
  items: readonly (T | HeraldError)[],
  now: Date,
): Promise<(T | HeraldError)[]> {
  if (guard.geoPermissions === null && guard.consentRequired.length === 0) return [...items];
  const needConsent = (item: T): boolean => guard.consentRequired.includes(item.message.trafficType);
  const numbers = new Set<string>();
  for (const item of items)
    if (!(item instanceof HeraldError) && needConsent(item)) numbers.add(item.message.destination);
  const scopes = await consentScopesOf(db, accountId, [...numbers], now);
  return items.map((item): T | HeraldError => {
    if (item instanceof HeraldError) return item;
    const country = item.subscriber.country ?? item.message.country;
    const geo = geoVerdict(guard.geoPermissions, country);
    if (geo === 'refused') return herald('countryNotAllowed', { country: country ?? 'unknown' });
    const { destination, senderName, trafficType } = item.message;
    const consented = scopes.some(
      (s) =>
        s.number === destination &&
        (s.sender_name === null || s.sender_name === senderName) &&
        (s.traffic_type === null || s.traffic_type === trafficType),
    );
    if (needConsent(item) && !consented) return herald('noConsent', { number: destination });
    return geo === 'monitored' ? Object.assign({}, item, { monitored: true }) : item;
  });
}

/** A message about to be stored: where it goes, what it says, what it costs. */
export interface StoredItem {
  readonly message: ValidMessage;
  readonly charge: { readonly amount: Micros; readonly currency: string } | null;
}

/** The store-time guard's verdict on a batch, and how to record what was stored. */
export interface StoreGuard {
  /** Per item: the error it is refused with, or null. */
  readonly refused: readonly (HeraldError | null)[];
  /** Records the items stored in the end (refused ones and those refused later for funds do not count). */
  record(stored: readonly boolean[]): Promise<void>;
}

/** The zone of the calendar day of dailySpendLimit: accounts have no zone of their own, so the operator's. */
export const SPEND_ZONE = 'Europe/Moscow';
const SPEND_DAY = new Intl.DateTimeFormat('en-CA', {
  timeZone: SPEND_ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
});
/** The calendar day (YYYY-MM-DD) of an instant in SPEND_ZONE. */
export const spendDayOf = (now: Date): string => SPEND_DAY.format(now);

const HOUR_MS = 3_600_000;
/**
 * A text's 32-bit hash (the first 4 bytes of its SHA-1): two of a destination's few texts in an hour are confused
 * once in 4 billion. The one-shot `hash` rather than a `createHash` object per message: 0.75 against 3.1 ms for a
 * batch of 1000 (the flood filter's largest cost in JavaScript).
 */
const textHash = (message: ValidMessage): number =>
  hash(
    'sha1',
    typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
    'buffer',
  ).readInt32BE(0);

/**
 * The checks of storing, in the storing transaction (DESIGN 20): the flood filter (4291: at most `identical` equal
 * texts and `any` messages per destination in any sliding hour) and the daily spend limit (4022). Exact when batches
 * of one account race, by the locks of the rows they count in, without a lock of the whole account: the flood
 * filter's one statement appends the batch to its destinations' rows, locking them in destination order, and reads
 * them as the batches committed before left them (a batch to the same destination waits for the commit of the one
 * before); the day's spend rows are locked last, just before the caller reserves funds (whose balance row serialises
 * one account's batches from there anyway). `record` takes back from the flood rows what was not stored (a second
 * statement only for batches with such messages) and adds the stored messages' prices to the day. `eligible`: the
 * items not refused already (they neither count nor are counted).
 */
export async function guardAtStore(
  tx: Queryable,
  accountId: number,
  guard: GuardSettings,
  items: readonly StoredItem[],
  eligible: readonly boolean[],
  now: Date,
): Promise<StoreGuard> {
  const flood = guard.flood;
  const limits = guard.dailySpendLimit;
  const limited = (item: StoredItem): boolean => item.charge !== null && limits?.[item.charge.currency] !== undefined;
  const spends = limits !== null && items.some((item, i) => eligible[i] && limited(item));
  if (flood === null && !spends) return { refused: items.map(() => null), record: async () => {} };

  const hashes = flood ? items.map((item) => textHash(item.message)) : [];
  /** The text hashes of the items `chosen`, per destination, in order. */
  const hashesByDestination = (chosen: (i: number) => boolean): Map<string, number[]> => {
    const by = new Map<string, number[]>();
    items.forEach((item, i) => {
      if (!chosen(i)) return;
      const list = by.get(item.message.destination);
      if (list) list.push(hashes[i]!);
      else by.set(item.message.destination, [hashes[i]!]);
    });
    return by;
  };
  const perDestination = new Map<string, number>();
  const perText = new Map<string, number>();
  // The eligible messages are appended at once (one statement reads and writes); `record` takes back those that
  // were not stored.
  const appended = flood ? hashesByDestination((i) => eligible[i]!) : new Map<string, number[]>();
  if (flood) {
    const before = await floodAppend(tx, accountId, appended, new Date(now.getTime() - HOUR_MS), now);
    for (const [destination, texts] of before) {
      perDestination.set(destination, texts.length);
      for (const hash of texts) {
        const key = `${destination}\u0000${hash}`;
        perText.set(key, (perText.get(key) ?? 0) + 1);
      }
    }
  }
  const day = spendDayOf(now);
  const spent = new Map<string, Micros>();
  if (spends) {
    const currencies = Object.keys(limits!);
    const read = await spendOfDayLocked(tx, accountId, day, currencies);
    for (const currency of currencies) spent.set(currency, toMicros(read.get(currency) ?? '0'));
  }

  const refused = items.map((item, i): HeraldError | null => {
    if (!eligible[i]) return null;
    const destination = item.message.destination;
    const textKey = flood ? `${destination}\u0000${hashes[i]}` : '';
    if (flood) {
      const any = perDestination.get(destination) ?? 0;
      const same = perText.get(textKey) ?? 0;
      if ((flood.any > 0 && any >= flood.any) || (flood.identical > 0 && same >= flood.identical))
        return herald('destinationFlood');
    }
    if (spends && limited(item)) {
      const { amount, currency } = item.charge!;
      const total = spent.get(currency)! + amount;
      if (total > toMicros(limits![currency]!)) return herald('dailySpendLimit');
      spent.set(currency, total);
    }
    if (flood) {
      perDestination.set(destination, (perDestination.get(destination) ?? 0) + 1);
      perText.set(textKey, (perText.get(textKey) ?? 0) + 1);
    }
    return null;
  });

  return {
    refused,
    async record(stored) {
      if (flood) {
        const kept = hashesByDestination((i) => eligible[i]! && stored[i]!);
        const fixes = new Map(
          [...appended]
            .filter(([d, sent]) => (kept.get(d)?.length ?? 0) < sent.length)
            .map(([d, sent]) => [d, { appended: sent.length, kept: kept.get(d) ?? [] }] as const),
        );
        await floodTakeBack(tx, accountId, fixes, now);
      }
      if (spends) {
        const amounts = new Map<string, Micros>();
        for (const item of items.filter((_, i) => stored[i]))
          if (limited(item))
            amounts.set(item.charge!.currency, (amounts.get(item.charge!.currency) ?? 0n) + item.charge!.amount);
        await spendAdd(tx, accountId, day, new Map([...amounts].map(([c, a]) => [c, fromMicros(a)])));
      }
    },
  };
}
