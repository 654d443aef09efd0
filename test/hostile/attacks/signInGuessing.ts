import type { Attack } from '../harness.js';

/** Wrong passwords sent at once in each round, from one address (finding 5). */
export const GUESSES_PER_ROUND = 60;

export interface GuessingState {
  readonly login: string;
  /** The attack's own block of addresses (its account's id): a setup made again (a retry) starts afresh. */
  readonly block: number;
}

export interface GuessingRound {
  /** The status of each guess, and the code of its error body. */
  readonly answers: readonly { status: number; code: number | undefined; retryAfter: string | null }[];
}

/**
 * Finding 5: sixty wrong passwords for a real login at once, each round from a new client address (X-Forwarded-For,
 * believed when Herald trusts the proxy in front of it; an IPv6 /64 of the setup's own block, which Herald counts as
 * one address), as a botnet would: the failure limit used to be charged only after the scrypt, so all of them got
 * one, and their scrypts took every thread of libuv's pool from file reads and DNS lookups.
 */
export const signInGuessing = (): Attack<GuessingState, GuessingRound> => ({
  name: 'concurrent wrong passwords at sign-in',
  async setup(h) {
    const account = await h.createAccount();
    const login = `guessed-${account.id}`;
    const user = await h.admin('POST', `/admin/v1/accounts/${account.id}/users`, {
      login,
      password: 'the right one, 16+',
    });
    if (user.status !== 201) throw new Error(`user not created: ${JSON.stringify(user.body)}`);
    return { login, block: account.id };
  },
  async round(h, state, round) {
    const hex = (n: number) => (n & 0xffff).toString(16);
    const address = `2001:db8:${hex(state.block)}:${hex(round)}::1`;
    const replies = await Promise.all(
      Array.from({ length: GUESSES_PER_ROUND }, (_, i) =>
        h.call('POST', '/app/v1/session', {
          body: { login: state.login, password: `guess ${round}.${i}` },
          headers: { 'x-forwarded-for': address },
        }),
      ),
    );
    return {
      answers: replies.map((r) => ({
        status: r.status,
        code: r.body?.error?.code,
        retryAfter: r.headers.get('retry-after'),
      })),
    };
  },
});
