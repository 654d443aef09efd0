import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { asAccount } from '../db/accountScope.js';
import { herald } from '../errors/catalogue.js';
import type { Clock } from '../util/clock.js';

/**
 * How long a request beyond its account's places waits for one before 429. A browser page's burst of a few calls waits
 * some milliseconds; eight 1000-message batches posted at once, 300 ms each with 2 places, about a second for the
 * last. The wait is the account's own (its requests ahead of it), and holds a connection, not the database; past
 * 5 s the account is sending more than its places serve, and is told to retry.
 */
export const ACCOUNT_WAIT_MS = 5000;
/**
 * Requests of one account that may wait for a place: beyond, 429 at once. Waiting costs a connection and a few objects,
 * not the database; a client with some tens of threads waits rather than being refused.
 */
export const ACCOUNT_WAITING = 64;

/** A place taken ({@link AccountConcurrency.enter}); releasing it again does nothing. */
export interface Place {
  release(): void;
}

interface Waiter {
  readonly grant: (place: Place) => void;
}

interface AccountPlaces {
  running: number;
  readonly waiting: Waiter[];
}

/**
 * The requests of one account that Herald handles at once in this process (HERALD_ACCOUNT_CONCURRENCY): at most
 * `limit` (0: no limit), the others wait in the account's own line, first come first served, up to
 * {@link ACCOUNT_WAIT_MS} and {@link ACCOUNT_WAITING} of them, and beyond either get 429 4290 with
 * Retry-After, as a client's rate limit does. Other accounts never wait in that line. On PostgreSQL this is also
 * what keeps one account from holding every connection of the pool.
 */
export class AccountConcurrency {
  private readonly accounts = new Map<number, AccountPlaces>();

  constructor(
    private readonly limit: number,
    private readonly clock: Clock,
    private readonly waitMs: number = ACCOUNT_WAIT_MS,
    private readonly queue: number = ACCOUNT_WAITING,
  ) {}

  /**
   * Takes one of the account's places, waiting for one if need be; throws 429 4290 (Retry-After 1) when the account's
   * line is full or the wait ends first. A request whose client leaves (`signal`) leaves the line.
   */
  async enter(accountId: number, signal?: AbortSignal): Promise<Place> {
    if (this.limit <= 0) return { release: () => undefined };
    let places = this.accounts.get(accountId);
    if (!places) {
      places = { running: 0, waiting: [] };
      this.accounts.set(accountId, places);
    }
    if (places.running < this.limit) {
      places.running++;
      return this.place(accountId, places);
    }
    if (places.waiting.length >= this.queue) throw herald('tooManyRequests', { retryAfter: 1 });
    const line = places.waiting;
    return new Promise<Place>((resolve, reject) => {
      const leave = (error: unknown): void => {
        const at = line.indexOf(waiter);
        if (at < 0) return;
        line.splice(at, 1);
        timer.cancel();
        signal?.removeEventListener('abort', onAbort);
        reject(error);
      };
      const onAbort = (): void => leave(signal!.reason);
      const waiter: Waiter = {
        grant: (place) => {
          timer.cancel();
          signal?.removeEventListener('abort', onAbort);
          resolve(place);
        },
      };
      const timer = this.clock.setTimer(this.waitMs, () => leave(herald('tooManyRequests', { retryAfter: 1 })));
      line.push(waiter);
      if (signal?.aborted) onAbort();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Requests of the account being handled and waiting now (for tests and metrics). */
  load(accountId: number): { running: number; waiting: number } {
    const places = this.accounts.get(accountId);
    return { running: places?.running ?? 0, waiting: places?.waiting.length ?? 0 };
  }

  private place(accountId: number, places: AccountPlaces): Place {
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        // The place goes to the first in line as it is (`running` stays), else back to the account.
        const next = places.waiting.shift();
        if (next) return next.grant(this.place(accountId, places));
        places.running--;
        if (places.running === 0) this.accounts.delete(accountId);
      },
    };
  }
}

/** The place a request holds: given back once its answer is sent or its client has left, and its handler returned. */
interface RequestPlace {
  readonly accountId: number;
  handlerStarted(): void;
  handlerEnded(): void;
}

const requestPlaces = new WeakMap<FastifyRequest, RequestPlace>();

/**
 * Takes one of the account's places for the request (see {@link AccountConcurrency.enter}); {@link asAccountHandler}
 * holds it while the handler runs. A client that leaves while its request waits leaves the line. Never leaked: the
 * response's 'close' event comes once whatever happens (answered, refused before the handler, connection lost), and
 * a handler's end is seen whether it returns, throws or rejects.
 */
export async function enterForRequest(
  concurrency: AccountConcurrency,
  accountId: number,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const response = reply.raw;
  const left = new AbortController();
  // Nobody reads the answer of a request whose client has left; a 429 is what it would have been told.
  const onLeft = (): void => left.abort(herald('tooManyRequests', { retryAfter: 1 }));
  response.once('close', onLeft);
  let place: Place;
  try {
    place = await concurrency.enter(accountId, left.signal);
  } finally {
    response.off('close', onLeft);
  }
  let running = false;
  let closed = false;
  const releaseIfDone = (): void => {
    if (closed && !running) place.release();
  };
  requestPlaces.set(request, {
    accountId,
    handlerStarted: () => {
      running = true;
    },
    handlerEnded: () => {
      running = false;
      releaseIfDone();
    },
  });
  // 'close' has already been emitted when the response is destroyed (Node sets both at once).
  if (response.destroyed) closed = true;
  else
    response.once('close', () => {
      closed = true;
      releaseIfDone();
    });
  releaseIfDone();
}

/**
 * Wraps a route's handler (every route, server.ts): for a request of an account (one that holds one of its places,
 * {@link enterForRequest}), the handler runs as the account's ({@link asAccount}: its statements take the account's
 * turns on the embedded database), and holds the request's place until it returns; the same handler otherwise.
 */
export function asAccountHandler(handler: RouteHandlerMethod): RouteHandlerMethod {
  return function (this: ThisParameterType<RouteHandlerMethod>, request, reply) {
    const place = requestPlaces.get(request);
    if (place === undefined) return handler.call(this, request, reply);
    place.handlerStarted();
    let result: unknown;
    try {
      result = asAccount(place.accountId, () => handler.call(this, request, reply));
    } catch (error) {
      place.handlerEnded();
      throw error;
    }
    if (isThenable(result)) result.then(place.handlerEnded, place.handlerEnded);
    else place.handlerEnded();
    return result;
  } as RouteHandlerMethod;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | undefined)?.then === 'function';
}
