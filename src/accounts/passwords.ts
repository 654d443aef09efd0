import { randomBytes, scrypt, type ScryptOptions, timingSafeEqual } from 'node:crypto';
import { herald } from '../errors/catalogue.js';

/**
 * scrypt cost of new hashes: N = 2^15, r = 8, p = 3, one of OWASP's equivalent minimums for scrypt (32 MiB, about
 * 170 ms of one core per hash; paid only at sign-in and when the operator sets a password). Stored hashes carry
 * their parameters, so raising them later (HERALD_PASSWORD_SCRYPT_COST) needs no migration.
 */
export const SCRYPT_PARAMS = { N: 32_768, r: 8, p: 3 } as const;

export interface ScryptParams {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}
const KEY_LENGTH = 32;
const SALT_BYTES = 16;
/** Limits of parameters read back from a stored hash: a corrupt row must not make a sign-in allocate gigabytes. */
const MAX_N = 1 << 20;

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** Hashes a password with scrypt and a random salt: `scrypt$N$r$p$<salt>$<hash>` (salt and hash base64url). */
export async function hashPassword(password: string, params: ScryptParams = SCRYPT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, params);
  const { N, r, p } = params;
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

/** Whether the password matches a stored hash, compared in constant time; false for a hash it cannot read. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number) as [number, number, number];
  if (
    ![N, r, p].every(Number.isSafeInteger) ||
    N < 2 ||
    N > MAX_N ||
    (N & (N - 1)) !== 0 ||
    r < 1 ||
    r > 32 ||
    p < 1 ||
    p > 16
  )
    return false;
  const expected = Buffer.from(parts[5]!, 'base64url');
  if (expected.length !== KEY_LENGTH) return false;
  const key = await derive(password, Buffer.from(parts[4]!, 'base64url'), { N, r, p });
  return timingSafeEqual(key, expected);
}

/**
 * Runs every scrypt of the process (sign-ins, passwords the operator sets) through a bounded gate: at most
 * `concurrency` at once, at most `queue` waiting, and beyond that a refusal (503 5035, Retry-After) instead of more
 * waiting. scrypt runs on libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), which file reads
 * and DNS lookups share: 28 wrong sign-ins at once made a static page of /app wait 15 s. Keeping scrypt to 2 threads
 * (1 on a 2-core machine, config.ts) leaves the others to them.
 */
export class PasswordHasher {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /**
   * A hash of no one's password, verified when a login names no user, so that an unknown login takes as long to
   * refuse as a wrong password (no telling which logins exist by the time of the answer).
   */
  private decoy: Promise<string> | undefined;

  constructor(
    private readonly concurrency: number,
    private readonly queue: number,
    private readonly params: ScryptParams = SCRYPT_PARAMS,
  ) {}

  hash(password: string): Promise<string> {
    return this.run(() => hashPassword(password, this.params));
  }

  /** {@link verifyPassword} through the gate; `stored` undefined checks against the decoy (an unknown login). */
  verify(password: string, stored: string | undefined): Promise<boolean> {
    return this.run(async () => {
      this.decoy ??= hashPassword(randomBytes(16).toString('hex'), this.params);
      return verifyPassword(password, stored ?? (await this.decoy));
    });
  }

  /** Hashes running or waiting now (for tests and metrics). */
  get load(): number {
    return this.running + this.waiting.length;
  }

  private async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running < this.concurrency) {
      this.running += 1;
    } else {
      if (this.waiting.length >= this.queue) throw herald('passwordHashBusy', { retryAfter: 1 });
      // The slot is handed over by the hash that finishes: `running` stays as it is.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
