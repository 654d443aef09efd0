import { describe, expect, it } from 'vitest';
import { hashPassword, PasswordHasher } from '../../src/accounts/passwords.js';
import { HeraldError } from '../../src/errors/catalogue.js';

describe('the password hashing gate', () => {
  it('runs as many hashes at once as allowed, queues as many as allowed, refuses the rest with 503 5035', async () => {
    const stored = await hashPassword('right password');
    const gate = new PasswordHasher(1, 1);
    const first = gate.verify('right password', stored);
    const second = gate.verify('wrong password', stored);
    expect(gate.load).toBe(2);
    const third = gate.verify('right password', stored);
    await expect(third).rejects.toBeInstanceOf(HeraldError);
    await expect(third).rejects.toMatchObject({
      status: 503,
      code: 5035,
      message: 'Too many sign-ins in progress; retry after 1 s',
      params: { retryAfter: 1 },
    });
    expect(await Promise.all([first, second])).toEqual([true, false]);
    // The slots are free again, the decoy included (an unknown login).
    expect(gate.load).toBe(0);
    expect(await Promise.all([gate.verify('anything', undefined), gate.hash('new one')])).toEqual([
      false,
      expect.stringMatching(/^scrypt\$/),
    ]);
    expect(gate.load).toBe(0);
  });

  it('hashes at N = 2^15, r = 8, p = 3 by default, and at the cost it is given', async () => {
    expect(await new PasswordHasher(1, 0).hash('x')).toMatch(/^scrypt\$32768\$8\$3\$[\w-]{22}\$[\w-]{43}$/);
    const cheap = await new PasswordHasher(1, 0, { N: 1024, r: 8, p: 3 }).hash('x');
    expect(cheap).toMatch(/^scrypt\$1024\$8\$3\$/);
    // A hash keeps its own parameters: any process verifies it, whatever cost it hashes new ones at.
    expect(await new PasswordHasher(1, 0).verify('x', cheap)).toBe(true);
  });

  it('frees its slot when a hash fails', async () => {
    const gate = new PasswordHasher(1, 0);
    // A stored hash it cannot read is simply no match; the gate stays usable.
    expect(await gate.verify('x', 'scrypt$999999999$8$3$AAAA$AAAA')).toBe(false);
    expect(gate.load).toBe(0);
  });
});
