import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageCount } from '../../src/messages/messageSql.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, SENDER } from '../messages/messageFixtures.js';

describe.each(ENGINES)('Idempotency-Key on POST /api/v1/message (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  const send = (key: string | undefined, body: unknown, token = account.traffic) =>
    t.call('POST', '/api/v1/message', { token, body, headers: key === undefined ? {} : { 'idempotency-key': key } });

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => t?.close());

  it('answers the same key and body with the first response and creates nothing more', async () => {
    const body = [message('SMS', { content: 'once' }), message('VK')];
    const before = await messageCount(t.testDb.db, account.id);
    const first = await send('order-1', body);
    expect(first.status).toBe(200);
    const again = await send('order-1', body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await messageCount(t.testDb.db, account.id)).toBe(before + 2);
  });

  it('answers 409 4090 for the same key with another body', async () => {
    await send('order-2', [message('VK', { content: 'a' })]);
    const other = await send('order-2', [message('VK', { content: 'b' })]);
    expect(other.status).toBe(409);
    expect(other.body).toEqual({
      error: { code: 4090, msg: 'Idempotency-Key order-2 was used with a different request body' },
    });
  });

  it('compares bodies as JSON values: keys in another order are the same body (DESIGN 12)', async () => {
    const viber = message('VIBER', { content: { contentType: 'text', text: 'x' } });
    const first = await send('reordered', [viber, message('VK')]);
    expect(first.body.errors).toBe(false);
    const reordered =
      '[{"content":{"text":"x","contentType":"text"},"destination":"79161234567","senderName":"Shop",' +
      `"channelType":"VIBER"},${JSON.stringify(Object.fromEntries(Object.entries(message('VK')).reverse()))}]`;
    const again = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      rawBody: reordered,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'reordered' },
    });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    // Arrays keep their order: the same messages in another order are another batch.
    const swapped = await send('reordered', [message('VK'), viber]);
    expect(swapped.status).toBe(409);
  });

  it('still answers a key recorded before bodies were compared as JSON values (hash of the text as sent)', async () => {
    const body = [message('VK', { content: 'before the upgrade' })];
    const first = await send('legacy', body);
    // What an earlier Herald recorded: the hash of JSON.stringify(body), key order as sent.
    const legacy = createHash('sha256').update(JSON.stringify(body)).digest('base64url');
    await t.testDb.db.query("UPDATE idempotency_keys SET request_hash = $1 WHERE key = 'legacy'", [legacy]);
    const again = await send('legacy', body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await send('legacy', [message('VK', { content: 'another' })])).status).toBe(409);
  });

  it('keeps keys per account', async () => {
    const second = await t.createAccount();
    const body = [message('VK')];
    const a = await send('shared-key', body);
    const b = await send('shared-key', body, second.traffic);
    expect(b.body.items[0].messageUuid).not.toBe(a.body.items[0].messageUuid);
  });

  it('replays for 24 hours, then treats the key as new', async () => {
    const body = [message('VK', { content: 'day' })];
    const first = await send('daily', body);
    t.clock.advance(24 * 3600_000 - 1000);
    expect((await send('daily', body)).body).toEqual(first.body);
    t.clock.advance(2000);
    const later = await send('daily', body);
    expect(later.status).toBe(200);
    expect(later.body.items[0].messageUuid).not.toBe(first.body.items[0].messageUuid);
    t.clock.advance(-(24 * 3600_000 + 1000));
  });

  it('creates the batch once when requests with one key race', async () => {
    const body = [message('VK', { content: 'race' }), message('VK', { content: 'race 2' })];
    const before = await messageCount(t.testDb.db, account.id);
    const replies = await Promise.all(Array.from({ length: 8 }, () => send('race-key', body)));
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual(replies[0]!.body);
    }
    expect(await messageCount(t.testDb.db, account.id)).toBe(before + 2);
  });

  it('does not record a refused request: the key stays free', async () => {
    const bad = await send('fix-me', [message('VK', { ttl: 1 })]);
    expect(bad.status).toBe(422);
    const good = await send('fix-me', [message('VK')]);
    expect(good.status).toBe(200);
  });

  it('refuses a key that is not 1 to 255 printable characters', async () => {
    const reply = await send('x'.repeat(256), [message('VK')]);
    expect(reply.status).toBe(422);
    expect(reply.body.error).toEqual({
      code: 4220,
      msg: 'Invalid Idempotency-Key: 1 to 255 printable ASCII characters expected',
    });
  });
});
