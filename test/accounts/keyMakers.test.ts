import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountUserLock } from '../../src/accounts/accountUserSql.js';
import { createToken } from '../../src/accounts/accounts.js';
import { ENGINES } from '../helpers/engines.js';
import { keyIdOf, startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';

const BAD_CREDENTIALS = { error: { code: 4012, msg: 'Bad credentials' } };

/** Keys minted by a web session die with the user who signed in (docs/security.md, migration 0013). */
describe.each(ENGINES)('keys that descend from a user (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let users = 0;

  const signIn = (body: unknown) => t.call('POST', '/app/v1/session', { body });
  const works = async (token: string) => (await t.call('GET', '/api/v1/sender-names', { token })).status;
  const trafficWorks = async (token: string) => (await t.call('GET', '/api/v1/balance', { token })).status;
  const mint = async (token: string, type: 'traffic' | 'system' = 'system') => {
    const made = await t.call('POST', '/api/v1/api-keys', { token, body: { type } });
    expect(made.status).toBe(201);
    return made.body as { id: string; token: string };
  };
  const listed = async (id: string) =>
    (await t.call('GET', '/api/v1/api-keys', { token: account.system })).body.items.find(
      (k: { id: string }) => k.id === id,
    );
  /** A new user of the account, signed in with login and password. */
  const userSession = async () => {
    const login = `user-${++users}`;
    const user = await t.admin('POST', `/admin/v1/accounts/${account.id}/users`, { login, password: 'long password' });
    const session = await signIn({ login, password: 'long password' });
    expect(session.status).toBe(201);
    return { userId: user.body.id as number, session: session.body as { traffic: string; system: string } };
  };

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount();
  });
  afterAll(async () => t?.close());

  it('deleting the user revokes the keys minted in their session: 401, and no new session with them', async () => {
    const { userId, session } = await userSession();
    const system = await mint(session.system);
    const traffic = await mint(session.system, 'traffic');
    expect(await listed(system.id)).toMatchObject({ createdByUser: userId, revokedAt: null });
    // A session opened with the minted key, before the user goes.
    const opened = await signIn({ token: system.token });
    expect(opened.status).toBe(201);
    expect(await works(system.token)).toBe(200);

    expect((await t.admin('DELETE', `/admin/v1/accounts/${account.id}/users/${userId}`)).status).toBe(204);
    expect((await t.call('GET', '/api/v1/sender-names', { token: system.token })).body).toEqual(BAD_CREDENTIALS);
    expect(await trafficWorks(traffic.token)).toBe(401);
    expect((await signIn({ token: system.token })).body).toEqual(BAD_CREDENTIALS);
    expect(await works(opened.body.system)).toBe(401);
    // The record stays: the revoked key still names its maker.
    expect(await listed(system.id)).toMatchObject({ createdByUser: userId, revokedAt: expect.any(String) });
  });

  it('follows the keys made in turn: with a minted key, and in a session opened with one', async () => {
    const { userId, session } = await userSession();
    const first = await mint(session.system);
    const byKey = await mint(first.token, 'traffic');
    const keySession = await signIn({ token: first.token });
    const inKeySession = await mint(keySession.body.system);
    for (const key of [byKey, inKeySession]) expect(await listed(key.id)).toMatchObject({ createdByUser: userId });

    expect((await t.admin('DELETE', `/admin/v1/accounts/${account.id}/users/${userId}`)).status).toBe(204);
    for (const token of [first.token, inKeySession.token, keySession.body.system]) expect(await works(token)).toBe(401);
    expect(await trafficWorks(byKey.token)).toBe(401);
  });

  it("leaves the operator's keys, the account's own keys and keys they mint, and other users' keys", async () => {
    const leaving = await userSession();
    const staying = await userSession();
    const ofOther = await mint(staying.session.system);
    const byOperator = await t.admin('POST', `/admin/v1/accounts/${account.id}/tokens`, { type: 'system' });
    const byAccountKey = await mint(account.system);
    // A session opened with the account's key does not descend from any user either.
    const keySession = await signIn({ token: account.system });
    const inKeySession = await mint(keySession.body.system);
    for (const id of [keyIdOf(byOperator.body.token), byAccountKey.id, inKeySession.id])
      expect(await listed(id)).toMatchObject({ createdByUser: null });

    expect((await t.admin('DELETE', `/admin/v1/accounts/${account.id}/users/${leaving.userId}`)).status).toBe(204);
    for (const token of [
      byOperator.body.token,
      byAccountKey.token,
      inKeySession.token,
      ofOther.token,
      account.system,
      keySession.body.system,
    ]) {
      expect(await works(token)).toBe(200);
    }
    expect(await works(staying.session.system)).toBe(200);
  });

  it("the operator resetting the user's password revokes the keys minted with it too", async () => {
    const { userId, session } = await userSession();
    const key = await mint(session.system);
    expect(
      (
        await t.admin('PUT', `/admin/v1/accounts/${account.id}/users/${userId}/password`, {
          password: 'another password',
        })
      ).status,
    ).toBe(204);
    expect(await works(key.token)).toBe(401);
    expect(await works(session.system)).toBe(401);
    // The user signs in with the new password and mints again.
    const again = await signIn({ login: `user-${users}`, password: 'another password' });
    expect(await works((await mint(again.body.system)).token)).toBe(200);
  });

  it.runIf(engine === 'postgres')(
    'a key being minted while the user is deleted is revoked with the others',
    async () => {
      const { userId } = await userSession();
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let mintedId = '';
      // What the minting route does: hold the user, write the key; the delete arrives in between.
      const minting = t.testDb.db.transaction(async (tx) => {
        expect(await accountUserLock(tx, userId)).toBe(true);
        mintedId = (
          await createToken(tx, account.id, 'system', null, t.clock.now(), undefined, { userId, sessionId: null })
        ).row.id;
        await held;
      });
      await waitFor(() => mintedId !== '');
      const deleting = t.admin('DELETE', `/admin/v1/accounts/${account.id}/users/${userId}`);
      await waitFor(async () => {
        const [row] = await t.testDb.db.query<{ waiting: number }>(
          "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock' " +
            "AND query LIKE 'DELETE FROM account_users%'",
        );
        return row!.waiting > 0;
      });
      release();
      await minting;
      expect((await deleting).status).toBe(204);
      const [row] = await t.testDb.db.query<{ revoked_at: Date | null }>(
        'SELECT revoked_at FROM api_tokens WHERE id = $1',
        [mintedId],
      );
      expect(row!.revoked_at).not.toBeNull();
    },
  );

  it('refuses to mint for a user gone while the token lives (a deletion that won the race): 401 4012', async () => {
    const { userId, session } = await userSession();
    // The user row alone, as a deletion that committed after this request was authenticated leaves things.
    await t.testDb.db.query('DELETE FROM account_users WHERE id = $1', [userId]);
    expect(await works(session.system)).toBe(200);
    expect(
      (await t.call('POST', '/api/v1/api-keys', { token: session.system, body: { type: 'system' } })).body,
    ).toEqual(BAD_CREDENTIALS);
  });
});
