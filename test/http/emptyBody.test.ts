import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { ADMIN_TOKEN, startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { SENDER } from '../messages/messageFixtures.js';

/**
 * A request that takes no body, sent with `Content-Type: application/json` and an empty body (what many HTTP clients
 * send for a POST without data), is taken as one without a body; a route that needs a body still refuses it.
 */
describe.each(ENGINES)('an empty JSON body (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => t?.close());

  const empty = (method: string, path: string, auth: string) =>
    t.call(method, path, { auth, rawBody: '', headers: { 'content-type': 'application/json' } });
  const basic = (token: string) => `Basic ${token}`;
  const admin = `Bearer ${ADMIN_TOKEN}`;

  it('is no body for an action that takes none: a dispatch start, a secret rotation, a delete', async () => {
    const created = await t.call('POST', '/api/v1/dispatch', {
      token: account.traffic,
      body: { dispatchName: 'Empty', channelType: 'SMS', senderName: SENDER, content: 'Hi' },
    });
    expect(created.status).toBe(201);
    const start = await empty('POST', `/api/v1/dispatch/${created.body.dispatchId}/start`, basic(account.traffic));
    expect(start.status).toBe(200);
    const shown = await t.call('GET', `/api/v1/dispatch/${created.body.dispatchId}`, { token: account.traffic });
    expect(shown.body.status).not.toBe('initiated');
    const rotated = await empty('POST', '/api/v1/callback-secret/rotate', basic(account.system));
    expect(rotated.status).toBe(200);
    const center = await t.call('POST', '/api/v1/traffic-centers', { token: account.system, body: { name: 'Gone' } });
    const deleted = await empty('DELETE', `/api/v1/traffic-centers/${center.body.id}`, basic(account.system));
    expect(deleted.status).toBeLessThan(300);
  });

  it('is no body where the body is optional: approving a template or a sender name', async () => {
    const template = await t.call('POST', '/api/v1/templates', {
      token: account.system,
      body: { channelType: 'SMS', templateType: 'SERVICE', pattern: 'Code %d', senderName: SENDER },
    });
    expect(template.status).toBe(201);
    const approved = await empty('POST', `/admin/v1/templates/${template.body.id}/approve`, admin);
    expect(approved.body).toMatchObject({ status: 'APPROVED' });
    const name = await t.call('POST', '/api/v1/sender-names', {
      token: account.system,
      body: { channelType: 'SMS', name: 'Later' },
    });
    expect(name.status).toBe(201);
    const named = await empty('POST', `/admin/v1/sender-names/${name.body.id}/approve`, admin);
    expect(named.body).toMatchObject({ status: 'Approved' });
  });

  it('is still refused where a body is required', async () => {
    const send = await empty('POST', '/api/v1/message', basic(account.traffic));
    expect(send.body).toEqual({ error: { code: 4000, msg: 'Malformed JSON body: the body is empty' } });
    const reject = await empty('POST', '/admin/v1/templates/1/reject', admin);
    expect(reject.body).toEqual({ error: { code: 4000, msg: 'Malformed JSON body: the body is empty' } });
  });
});
