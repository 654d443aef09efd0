import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageCount } from '../../src/messages/messageSql.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, MSISDN, openChatWindow, SENDER } from '../messages/messageFixtures.js';
import { messageRows } from '../helpers/messageRows.js';

interface StoredRow {
  id: string;
  channel_type: string;
  destination: string;
  country: string;
  content: unknown;
  status: string;
  total_parts: number;
  tags: string[];
  hours: number[] | null;
  callback_events: string[] | null;
  created_at: Date;
  planned_send_at: Date;
}

describe.each(ENGINES)('batches and storage (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  const stored = async (): Promise<number> => messageCount(t.testDb.db, account.id);

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount({
      channels: { WHATSAPP: true },
      senderNames: [
        ['SMS', SENDER],
        ['WHATSAPP', SENDER],
      ],
    });
  });
  afterAll(async () => t?.close());

  it('stores nothing when one message of a batch is invalid', async () => {
    const before = await stored();
    const body = Array.from({ length: 500 }, (_, i) => message('SMS', { content: `m${i}` }));
    body[499] = message('SMS', { destination: '123' });
    const reply = await t.call('POST', '/api/v1/message', { token: account.traffic, body });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({ error: { code: 4220, msg: 'Invalid msisdn', index: 499 } });
    expect(await stored()).toBe(before);
  });

  it('stores a 1000-message batch whole, answering in request order', async () => {
    const before = await stored();
    const body = Array.from({ length: 1000 }, (_, i) =>
      message('SMS', { destination: `7916${String(1_000_000 + i)}`, content: `message ${i}` }),
    );
    const reply = await t.call('POST', '/api/v1/message', { token: account.traffic, body });
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toBe(false);
    expect(reply.body.items).toHaveLength(1000);
    expect(new Set(reply.body.items.map((item: { messageUuid: string }) => item.messageUuid)).size).toBe(1000);
    expect(await stored()).toBe(before + 1000);

    const rows = await t.testDb.db.query<{ id: string; destination: string; content: string }>(
      'SELECT id, destination, content FROM messages WHERE account_id = $1 AND id = ANY($2::uuid[])',
      [account.id, reply.body.items.map((item: { messageUuid: string }) => item.messageUuid)],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    reply.body.items.forEach((item: { messageUuid: string; code: number }, i: number) => {
      expect(item.code).toBe(201);
      expect(byId.get(item.messageUuid)).toMatchObject({
        destination: `7916${1_000_000 + i}`,
        content: `message ${i}`,
      });
    });
  });

  it('refuses 1001 messages and an empty or non-array body', async () => {
    const before = await stored();
    const many = Array.from({ length: 1001 }, () => message('SMS'));
    expect((await t.call('POST', '/api/v1/message', { token: account.traffic, body: many })).body).toEqual({
      error: { code: 4220, msg: 'Max count of messages is 1000' },
    });
    expect((await t.call('POST', '/api/v1/message', { token: account.traffic, body: [] })).body).toEqual({
      error: { code: 4220, msg: 'Min count of messages is 1' },
    });
    const object = await t.call('POST', '/api/v1/message', { token: account.traffic, body: message('SMS') });
    expect(object.status).toBe(422);
    expect(object.body).toEqual({ error: { code: 4220, msg: 'Request body must be a JSON array of message objects' } });
    expect(await stored()).toBe(before);
  });

  it('stores each message normalised, in status sending, with its parts', async () => {
    const TAGS = ['a', 'NULL', 'тег_1'];
    // A footer needs the chat window or a template with that content (docs/entities.md, Templates).
    await openChatWindow(t, account.id, SENDER, MSISDN);
    const reply = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [
        // Tags an array's text must quote (NULL, not the null element): stored as given.
        message('SMS', { destination: '+7 916 123-45-67', content: 'я'.repeat(71), tags: TAGS, hours: [9, 10] }),
        message('SMS', {
          destination: '89161234567',
          content: 'a'.repeat(161),
          callbackUrl: 'https://example.com/x',
          callbackEvents: ['sent', 'price'],
        }),
        message('WHATSAPP', { content: { contentType: 'text', text: 'Hi', footer: { text: 'f' } } }),
      ],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toBe(false);
    const ids = reply.body.items.map((item: { messageUuid: string }) => item.messageUuid);
    const rows = await t.testDb.db.query<StoredRow>(
      `SELECT id, channel_type, destination, country, content, status, total_parts, tags, hours, callback_events,
              created_at, planned_send_at
       FROM ${messageRows()} WHERE account_id = $1 AND id = ANY($2::uuid[])`,
      [account.id, ids],
    );
    const row = (i: number) => rows.find((r) => r.id === ids[i])!;
    expect(row(0)).toMatchObject({
      destination: '79161234567',
      country: 'RU',
      status: 'sending',
      total_parts: 2,
      tags: TAGS,
      hours: [9, 10],
    });
    expect(row(1)).toMatchObject({ destination: '79161234567', total_parts: 2, callback_events: ['sent', 'price'] });
    expect(row(2)).toMatchObject({
      channel_type: 'WHATSAPP',
      total_parts: 1,
      content: { contentType: 'text', text: 'Hi', footer: { text: 'f' } },
    });
    expect(row(0).created_at.toISOString()).toBe(t.clock.now().toISOString());
  });

  it('generates each message in order: a channel the operator has not enabled gets item code 4031', async () => {
    // One WhatsApp sender name has one owner (DESIGN 12): the other account has a name of its own.
    const other = await t.createAccount({
      senderNames: [
        ['SMS', SENDER],
        ['WHATSAPP', 'Other'],
      ],
    });
    const before = await messageCount(t.testDb.db, other.id);
    const reply = await t.call('POST', '/api/v1/message', {
      token: other.traffic,
      body: [message('SMS'), message('WHATSAPP', { senderName: 'Other' }), message('VK')],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.errors).toBe(true);
    expect(reply.body.items[0]).toMatchObject({ code: 201 });
    expect(reply.body.items[1]).toEqual({ code: 4031, msg: 'Channel is not enabled: WHATSAPP' });
    expect(reply.body.items[2]).toMatchObject({ code: 201 });
    expect(await messageCount(t.testDb.db, other.id)).toBe(before + 2);

    // The operator switches SMS off: now SMS is refused too.
    await t.admin('PATCH', `/admin/v1/accounts/${other.id}`, { channels: { SMS: false, WHATSAPP: true } });
    const after = await t.call('POST', '/api/v1/message', {
      token: other.traffic,
      body: [message('SMS'), message('WHATSAPP', { senderName: 'Other' })],
    });
    expect(after.body.items[0]).toEqual({ code: 4031, msg: 'Channel is not enabled: SMS' });
    expect(after.body.items[1]).toMatchObject({ code: 201 });
  });

  it('gives time-ordered message uuids (version 7)', async () => {
    const reply = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('VK'), message('VK')],
    });
    for (const item of reply.body.items)
      expect(item.messageUuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(reply.body.items[0].messageUuid.slice(0, 13)).toBe(reply.body.items[1].messageUuid.slice(0, 13));
  });
});
