import type { Attack, Reply } from '../harness.js';

export interface RevokedKeysState {
  /** A system key minted in a user's web session, then revoked with the user. */
  readonly key: string;
}

/**
 * Finding 7: a person signs in, mints a system API key with the session, and is deleted by the operator; the key
 * used to outlive them. Each round presents the key to the API and to sign-in, from an address of its own
 * (X-Forwarded-For, believed when Herald trusts the proxy in front of it).
 */
export const revokedKeys = (): Attack<RevokedKeysState, Reply[]> => ({
  name: 'keys of a deleted user',
  async setup(h) {
    const account = await h.createAccount();
    const login = `leaver-${account.id}`;
    const user = await h.admin('POST', `/admin/v1/accounts/${account.id}/users`, {
      login,
      password: 'a long password, gone soon',
    });
    const session = await h.call('POST', '/app/v1/session', {
      body: { login, password: 'a long password, gone soon' },
    });
    const minted = await h.call('POST', '/api/v1/api-keys', { token: session.body.system, body: { type: 'system' } });
    if (minted.status !== 201) throw new Error(`key not minted: ${JSON.stringify(minted.body)}`);
    await h.admin('DELETE', `/admin/v1/accounts/${account.id}/users/${user.body.id}`);
    return { key: minted.body.token };
  },
  async round(h, state, round) {
    const headers = { 'x-forwarded-for': `203.0.113.${(round % 250) + 1}` };
    return Promise.all([
      h.call('GET', '/api/v1/sender-names', { token: state.key, headers }),
      h.call('POST', '/api/v1/api-keys', { token: state.key, body: { type: 'system' }, headers }),
      h.call('POST', '/app/v1/session', { body: { token: state.key }, headers }),
    ]);
  },
});
