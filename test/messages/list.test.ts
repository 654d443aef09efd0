import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, SENDER } from './messageFixtures.js';
import { messagesSet } from '../helpers/messageRows.js';

describe.each(ENGINES)('GET /api/v1/message and GET /api/v1/message/{uuid} (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let other: TestAccount;
  const ids: string[] = [];
  const list = (query: string, token = account.traffic) => t.call('GET', `/api/v1/message${query}`, { token });

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
    other = await t.createAccount();
    // Three batches a minute apart: 09:00, 09:01, 09:02.
    for (const [i, body] of [
      [
        message('SMS', { destination: '79161234501', content: 'alpha one', tags: ['promo'] }),
        message('VK', { destination: '79161234502', content: 'beta' }),
      ],
      [message('SMS', { destination: '79161234503', content: 'gamma', tags: ['otp', 'x'] })],
      [message('VK', { destination: '+7 916 123-45-01', content: 'alpha two' })],
    ].entries()) {
      const reply = await t.call('POST', '/api/v1/message', { token: account.traffic, body });
      ids.push(...reply.body.items.map((item: { messageUuid: string }) => item.messageUuid));
      t.clock.advance(60_000);
      void i;
    }
    await t.call('POST', '/api/v1/message', { token: other.traffic, body: [message('VK', { content: 'not mine' })] });
  });
  afterAll(async () => t?.close());

  it('lists the account messages newest first, with pagination', async () => {
    const all = await list('');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ page: 1, per_page: 100, total: 4 });
    expect(all.body.items.map((m: { messageUuid: string }) => m.messageUuid)).toEqual([...ids].reverse());
    const page2 = await list('?per_page=3&page=2');
    expect(page2.body.items.map((m: { messageUuid: string }) => m.messageUuid)).toEqual([ids[0]]);
    const oldest = await list('?sort=created_time&per_page=1');
    expect(oldest.body.items[0].messageUuid).toBe(ids[0]);
  });

  it.each([
    ['?channel_type=VK', [1, 3]],
    ['?destination=89161234501', [0, 3]],
    ['?tags=otp', [2]],
    ['?tags=promo,otp', [0, 2]],
    ['?content=alpha', [0, 3]],
    ['?sender_name=Herald', [0, 2]],
    ['?status=sending', [0, 1, 2, 3]],
    ['?status=delivered', []],
    ['?direction=outbound', [0, 1, 2, 3]],
    ['?time_from=2026-03-10T09:01:00Z', [2, 3]],
    ['?time_to=2026-03-10 09:00:59', [0, 1]],
    ['?time_from=2026-03-10T09:01:00Z&time_to=2026-03-10T09:01:59Z', [2]],
  ])('filters %s', async (query, expected) => {
    const reply = await list(query);
    expect(reply.status).toBe(200);
    expect(reply.body.items.map((m: { messageUuid: string }) => m.messageUuid).sort()).toEqual(
      expected.map((i) => ids[i]).sort(),
    );
    expect(reply.body.total).toBe(expected.length);
  });

  it('filters by message_uuid', async () => {
    const reply = await list(`?message_uuid=${ids[2]}`);
    expect(reply.body.items.map((m: { messageUuid: string }) => m.messageUuid)).toEqual([ids[2]]);
  });

  it.each([
    ['?per_page=1000&page=11', 'Invalid page: 11 (page * per_page may not exceed 10000; narrow time_from/time_to)'],
    ['?per_page=1001', null],
    ['?page=0', null],
    ['?status=lost', null],
    ['?time_from=yesterday', 'Invalid time_from: "yesterday"'],
    ['?destination=12', 'Invalid msisdn'],
    ['?message_uuid=abc', 'Invalid message_uuid: "abc"'],
  ])('refuses %s with 422', async (query, msg) => {
    const reply = await list(query);
    expect(reply.status).toBe(422);
    expect(reply.body.error.code).toBe(4220);
    if (msg) expect(reply.body.error.msg).toBe(msg);
  });

  it('returns one message object with the fields of DESIGN 4', async () => {
    const reply = await t.call('GET', `/api/v1/message/${ids[0]}`, { token: account.traffic });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      messageUuid: ids[0],
      createdTime: '2026-03-10T09:00:00Z',
      channelType: 'SMS',
      sendingMethod: 'API',
      senderName: 'Herald',
      destination: '79161234501',
      country: 'RU',
      region: 'Город Москва, Московская область',
      brand: 'МТС',
      content: 'alpha one',
      tags: ['promo'],
      useLocalTime: true,
      totalParts: 1,
      plannedSendTime: '2026-03-10T09:00:00Z',
      status: 'sending',
      direction: 'outbound',
      errorCode: null,
    });
    for (const field of [
      'trafficType',
      'templateId',
      'trafficCenterId',
      'externalMessageId',
      'ttl',
      'hours',
      'days',
      'localSendTime',
      'localCompletionTime',
      'callbackUrl',
      'callbackEvents',
      'price',
      'sentTime',
      'statusTime',
      'readStatus',
      'cascadeMessageUuid',
      'cascadeStep',
      'statusHistory',
    ]) {
      expect(reply.body).toHaveProperty(field);
    }
  });

  it('masks callback credentials', async () => {
    const sent = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('VK', { callbackUrl: 'https://user:secret@example.com/cb' })],
    });
    const reply = await t.call('GET', `/api/v1/message/${sent.body.items[0].messageUuid}`, { token: account.traffic });
    expect(reply.body.callbackUrl).toBe('https://user:***@example.com/cb');
    expect(JSON.stringify(reply.body)).not.toContain('secret');
    // The row keeps only the URL's target (each of its versions would write the URL again); it is read from there,
    // in the list too.
    const [row] = await t.testDb.db.query<{ callback_url: string | null; callback_target_id: string | null }>(
      'SELECT callback_url, callback_target_id FROM messages WHERE id = $1',
      [sent.body.items[0].messageUuid],
    );
    expect(row).toMatchObject({ callback_url: null, callback_target_id: expect.anything() });
    const listed = await list(`?message_uuid=${sent.body.items[0].messageUuid}`);
    expect(listed.body.items[0].callbackUrl).toBe('https://user:***@example.com/cb');
  });

  it('stores no tags as NULL and shows them as [], and a list by tag leaves such a message out', async () => {
    const own = await t.createAccount();
    const sent = await t.call('POST', '/api/v1/message', {
      token: own.traffic,
      body: [message('VK', { destination: '79161234521' }), message('VK', { destination: '79161234522', tags: ['x'] })],
    });
    expect(sent.status).toBe(200);
    const [untagged, tagged] = sent.body.items.map((i: { messageUuid: string }) => i.messageUuid);
    const rows = await t.testDb.db.query<{ id: string; tags: string[] | null }>(
      'SELECT id, tags FROM messages WHERE id = ANY($1::uuid[])',
      [[untagged, tagged]],
    );
    expect(Object.fromEntries(rows.map((r) => [r.id, r.tags]))).toEqual({ [untagged]: null, [tagged]: ['x'] });
    const reply = await t.call('GET', `/api/v1/message/${untagged}`, { token: own.traffic });
    expect(reply.body.tags).toEqual([]);
    expect((await list(`?message_uuid=${untagged}`, own.traffic)).body.items[0].tags).toEqual([]);
    expect((await list('?tags=x', own.traffic)).body.items.map((i: { messageUuid: string }) => i.messageUuid)).toEqual([
      tagged,
    ]);
  });

  it("stores a region's name once and its id in each message; a row stored with the name shows that", async () => {
    const own = await t.createAccount();
    const sent = await t.call('POST', '/api/v1/message', {
      token: own.traffic,
      body: [message('VK', { destination: '79161234531' }), message('VK', { destination: '79161234532' })],
    });
    expect(sent.status).toBe(200);
    const uuids: string[] = sent.body.items.map((i: { messageUuid: string }) => i.messageUuid);
    const rows = await t.testDb.db.query<{ region: string | null; region_id: number | null }>(
      'SELECT region, region_id FROM messages WHERE id = ANY($1::uuid[])',
      [uuids],
    );
    expect(rows).toHaveLength(2);
    expect(rows[0]!.region).toBeNull();
    expect(rows[0]!.region_id).not.toBeNull();
    expect(rows[1]!.region_id).toBe(rows[0]!.region_id);
    const names = await t.testDb.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM message_regions WHERE name = 'Город Москва, Московская область'",
    );
    expect(names[0]!.n).toBe(1);
    for (const uuid of uuids)
      expect((await t.call('GET', `/api/v1/message/${uuid}`, { token: own.traffic })).body.region).toBe(
        'Город Москва, Московская область',
      );
    // A row as stored before migration 0055: its own name, no id.
    await t.testDb.db.query("UPDATE messages SET region = 'Old name', region_id = NULL WHERE id = $1", [uuids[0]]);
    expect((await list(`?message_uuid=${uuids[0]}`, own.traffic)).body.items[0].region).toBe('Old name');
  });

  it("does not show another account's message, nor with a system token", async () => {
    expect((await t.call('GET', `/api/v1/message/${ids[0]}`, { token: other.traffic })).status).toBe(404);
    expect((await t.call('GET', '/api/v1/message/not-a-uuid', { token: account.traffic })).status).toBe(404);
    expect((await t.call('GET', `/api/v1/message/${ids[0]}`, { token: account.system })).body.error.code).toBe(4030);
    expect((await list('', other.traffic)).body.total).toBe(1);
  });

  describe('filters of DESIGN 12', () => {
    let own: TestAccount;
    const sent: Record<string, string> = {};
    const uuids = async (query: string) => {
      const reply = await list(query, own.traffic);
      expect(reply.status).toBe(200);
      expect(reply.body.total).toBe(reply.body.items.length);
      return reply.body.items.map((m: { messageUuid: string }) => m.messageUuid).sort();
    };
    const names = (...keys: string[]) => keys.map((k) => sent[k]).sort();
    const uuidOf = (item: { messageUuid: string }) => item.messageUuid;

    beforeAll(async () => {
      own = await t.createAccount({ senderNames: [['SMS', SENDER]] });
      const template = await t.call('POST', '/api/v1/templates', {
        token: own.system,
        body: { channelType: 'SMS', templateType: 'SERVICE', senderName: SENDER, pattern: 'Your code is %d' },
      });
      await t.admin('POST', `/admin/v1/templates/${template.body.id}/approve`, {});
      sent.templateId = String(template.body.id);
      const api = await t.call('POST', '/api/v1/message', {
        token: own.traffic,
        body: [
          message('SMS', { content: 'Your code is 1234' }),
          message('VIBER', {
            content: { contentType: 'button', text: 'Big sale', caption: 'Open shop', action: 'https://a.example/s' },
          }),
          message('VK', { destination: '+4915112345678', content: 'Hallo' }),
          message('VK', { content: 'read me' }),
        ],
      });
      [sent.code, sent.viber, sent.german, sent.read] = api.body.items.map(uuidOf);
      // The personal account's Send page sends with a web sign-in's session token.
      const session = await t.call('POST', '/app/v1/session', { body: { token: own.system } });
      const body = [message('VK', { content: 'from the page' })];
      const ui = await t.call('POST', '/api/v1/message', { token: session.body.traffic, body });
      sent.ui = ui.body.items[0].messageUuid;
      // A message delivered and then read: status stays delivered, readStatus is read (DESIGN 12).
      await messagesSet(t.testDb.db, { ids: [sent.read!] }, { status: 'delivered', read_status: 'read' });
      // An inbound message of the account.
      sent.inbound = '019cd6f9-7a80-7121-b48d-fc5a90434664';
      await t.testDb.db.query(
        `INSERT INTO messages (account_id, id, created_at, channel_type, direction, sender_name, destination, content,
           total_parts, status, status_at)
         VALUES ($1, $2, now(), 'WHATSAPP', 'inbound', $3, '79161234567', $4, 1, 'inbound_sent', now())`,
        [own.id, sent.inbound, SENDER, JSON.stringify({ contentType: 'text', text: 'Where is my parcel?' })],
      );
    });

    it('lists outbound messages unless direction is given', async () => {
      expect(await uuids('')).toEqual(names('code', 'viber', 'german', 'read', 'ui'));
      expect(await uuids('?direction=outbound')).toEqual(names('code', 'viber', 'german', 'read', 'ui'));
      expect(await uuids('?direction=inbound')).toEqual(names('inbound'));
    });

    it('marks and filters the sending method: UI for a web session, API otherwise', async () => {
      const methodOf = async (id: string) =>
        (await t.call('GET', `/api/v1/message/${id}`, { token: own.traffic })).body.sendingMethod;
      expect(await methodOf(sent.ui!)).toBe('UI');
      expect(await methodOf(sent.code!)).toBe('API');
      expect(await uuids('?sending_method=UI')).toEqual(names('ui'));
      expect(await uuids('?sending_method=API')).toEqual(names('code', 'viber', 'german', 'read'));
    });

    it.each([
      ['?content=Your code', ['code']],
      ['?content=Open shop', ['viber']],
      ['?content=Big sale', ['viber']],
      ['?content=parcel&direction=inbound', ['inbound']],
      // The stored JSON is not searched: its keys and the link of a Viber button are no text.
      ['?content=contentType', []],
      ['?content=caption', []],
      ['?content=a.example', []],
    ])('matches the text with %s', async (query, expected) => {
      expect(await uuids(query)).toEqual(names(...expected));
    });

    it('filters by template_id and country_code', async () => {
      expect(await uuids(`?template_id=${sent.templateId}`)).toEqual(names('code'));
      expect(await uuids('?country_code=DE')).toEqual(names('german'));
      expect(await uuids('?country_code=de')).toEqual(names('german'));
      expect(await uuids('?country_code=RU')).toEqual(names('code', 'viber', 'read', 'ui'));
    });

    it('filters status=read and status=unread on readStatus, as read_status does', async () => {
      expect(await uuids('?status=read')).toEqual(names('read'));
      expect(await uuids('?read_status=read')).toEqual(names('read'));
      expect(await uuids('?status=delivered')).toEqual(names('read'));
      expect(await uuids('?status=unread')).toEqual([]);
      expect(await uuids('?status=read&read_status=unread')).toEqual([]);
      expect(await uuids('?status=delivered&read_status=read')).toEqual(names('read'));
    });

    it.each([
      ['?colour=red', 'Invalid colour'],
      ['?per_page=10&statuses=sent', 'Invalid statuses'],
      ['?country_code=DEU', 'Invalid country_code: "DEU"'],
      ['?sending_method=WEB', null],
      ['?read_status=sent', null],
    ])('refuses %s with 422 4220', async (query, msg) => {
      const reply = await list(query, own.traffic);
      expect([reply.status, reply.body.error.code]).toEqual([422, 4220]);
      if (msg) expect(reply.body.error.msg).toBe(msg);
    });
  });
});
