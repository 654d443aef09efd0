import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, SENDER } from '../messages/messageFixtures.js';

const LISTED = { code: 4032, msg: 'Destination is on the stop list' };

/** The stop lists' API (DESIGN 20) and the check at generation, through real HTTP; no carrier is involved. */
describe.each(ENGINES)('stop lists: API and generation (%s)', (engine) => {
  let t: TestHerald;

  beforeAll(async () => {
    t = await startTestHerald(engine);
    expect(
      (await t.admin('POST', '/admin/v1/tariffs', { channelType: 'SMS', prefix: '7916', price: 2, currency: 'RUB' }))
        .status,
    ).toBe(201);
  });
  afterAll(async () => t?.close());

  const fresh = (): Promise<TestAccount> => t.createAccount({ senderNames: [['SMS', SENDER]], balance: 100 });
  const list = (a: TestAccount) => ({
    add: (body: unknown) => t.call('POST', '/api/v1/stop-list', { token: a.system, body }),
    get: (path = '') => t.call('GET', `/api/v1/stop-list${path}`, { token: a.system }),
    del: (id: number) => t.call('DELETE', `/api/v1/stop-list/${id}`, { token: a.system }),
    import: (csv: string) => t.call('POST', '/api/v1/stop-list/import', { token: a.system, body: { csv } }),
  });
  const balance = async (a: TestAccount): Promise<number> =>
    (await t.call('GET', '/api/v1/balance', { token: a.traffic })).body.RUB;
  const send = (a: TestAccount, messages: Record<string, unknown>[]) =>
    t.call('POST', '/api/v1/message', { token: a.traffic, body: messages });

  describe('the API', () => {
    it('adds an entry once per number and scope (201, then 200 with the same entry), gets and deletes it', async () => {
      const a = list(await fresh());
      const first = await a.add({ number: '+7 916 111-22-33', trafficTypes: ['SERVICE', 'PROMO'], comment: 'asked' });
      expect(first.status).toBe(201);
      expect(first.body).toEqual({
        id: expect.any(Number),
        number: '79161112233',
        channelType: null,
        senderName: null,
        trafficTypes: ['SERVICE', 'PROMO'],
        source: 'api',
        comment: 'asked',
        createdTime: t.clock.now().toISOString(),
      });
      const again = await a.add({ number: '89161112233', trafficTypes: ['PROMO', 'SERVICE'] });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      // Another scope is another entry.
      expect((await a.add({ number: '79161112233', channelType: 'SMS' })).status).toBe(201);
      expect((await a.get(`/${first.body.id}`)).body).toEqual(first.body);
      expect((await a.del(first.body.id)).status).toBe(204);
      expect((await a.get(`/${first.body.id}`)).body.error).toEqual({
        code: 4040,
        msg: `Stop list entry ${first.body.id} not found`,
      });
      expect((await a.del(first.body.id)).status).toBe(404);
    });

    it("keeps each account's list its own, and the operator's apart", async () => {
      const [one, two] = [list(await fresh()), list(await fresh())];
      const entry = (await one.add({ number: '79161112234' })).body;
      expect((await two.get(`/${entry.id}`)).status).toBe(404);
      expect((await two.del(entry.id)).status).toBe(404);
      expect((await two.get()).body).toEqual({ items: [], page: 1, per_page: 100, total: 0 });
      expect((await t.admin('GET', `/admin/v1/stop-list/${entry.id}`)).status).toBe(404);
      expect((await one.get(`/${entry.id}`)).status).toBe(200);
      const operator = await t.admin('POST', '/admin/v1/stop-list', { number: '79161112234', comment: 'fraud' });
      expect(operator.status).toBe(201);
      expect(operator.body).toMatchObject({ source: 'operator', number: '79161112234' });
      expect((await one.get(`/${operator.body.id}`)).status).toBe(404);
    });

    it('refuses bad input with 422 and the field, and other tokens', async () => {
      const account = await fresh();
      const a = list(account);
      const refused = async (body: unknown, msg: string) => {
        const reply = await a.add(body);
        expect(reply.status).toBe(422);
        expect(reply.body.error).toEqual({ code: 4220, msg });
      };
      await refused({ number: '12' }, 'Invalid number: "12"');
      await refused({ number: '79161112235', channelType: 'FAX' }, expect.stringMatching(/^Invalid/) as never);
      await refused({ number: '79161112235', trafficTypes: [] }, expect.stringMatching(/^Invalid/) as never);
      await refused({ number: '79161112235', senderName: 'x'.repeat(65) }, expect.stringMatching(/^Invalid/) as never);
      await refused({}, expect.stringMatching(/number/) as never);
      expect((await a.get('?number=abc')).body.error).toEqual({ code: 4220, msg: 'Invalid number: "abc"' });
      // TOKEN_1 and no token: refused; TOKEN_2: the positive control.
      const withTraffic = await t.call('POST', '/api/v1/stop-list', {
        token: account.traffic,
        body: { number: '79161112235' },
      });
      expect(withTraffic.body.error.code).toBe(4030);
      expect((await t.call('GET', '/api/v1/stop-list')).status).toBe(401);
      expect((await t.call('GET', '/admin/v1/stop-list', { token: account.system })).status).toBe(401);
      expect((await a.add({ number: '79161112235' })).status).toBe(201);
    });

    it('lists with filters, newest first, in pages', async () => {
      const a = list(await fresh());
      await a.add({ number: '79161110001' });
      await a.add({ number: '79161110002', channelType: 'SMS', senderName: 'Shop' });
      await a.add({ number: '79161110003', channelType: 'VK' });
      await a.import('number\n79161110004\n');
      const numbers = async (query: string) => (await a.get(query)).body.items.map((e: { number: string }) => e.number);
      expect(await numbers('')).toEqual(['79161110004', '79161110003', '79161110002', '79161110001']);
      expect(await numbers('?channelType=SMS')).toEqual(['79161110002']);
      expect(await numbers('?senderName=Shop')).toEqual(['79161110002']);
      expect(await numbers('?source=import')).toEqual(['79161110004']);
      expect(await numbers('?number=%2B79161110003')).toEqual(['79161110003']);
      const page = (await a.get('?per_page=3&page=2')).body;
      expect(page).toMatchObject({ page: 2, per_page: 3, total: 4 });
      expect(page.items.map((e: { number: string }) => e.number)).toEqual(['79161110001']);
      expect((await a.get('?per_page=1001')).status).toBe(422);
      expect((await a.get('?sort=number')).status).toBe(422);
    });

    it('imports a CSV: valid rows added, each invalid row reported by line; exports what imports again', async () => {
      const account = await fresh();
      const a = list(account);
      const csv = [
        'number,channelType,senderName,trafficTypes,comment',
        '79161120001,,,,',
        '79161120002,SMS,Shop,PROMO;SERVICE,"said ""stop"", twice"',
        'not a number,,,,',
        '79161120003,FAX,,,',
        '79161120004,,,BULK,',
        '',
        '79161120001,,,,again',
      ].join('\r\n');
      const reply = await a.import(csv);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({
        rows: 6,
        added: 2,
        existing: 1,
        errorCount: 3,
        errors: [
          { line: 4, msg: 'Invalid number: "not a number"' },
          { line: 5, msg: 'Invalid channelType: "FAX"' },
          { line: 6, msg: 'Invalid trafficTypes: ["BULK"]' },
        ],
      });
      const items = (await a.get()).body.items;
      expect(items[0]).toMatchObject({
        number: '79161120002',
        channelType: 'SMS',
        senderName: 'Shop',
        trafficTypes: ['SERVICE', 'PROMO'],
        source: 'import',
        comment: 'said "stop", twice',
      });
      expect((await a.import('phone\n79161120005\n')).body).toMatchObject({
        added: 0,
        errors: [{ line: 1, msg: 'The header row must name a number column' }],
      });

      const exported = await t.call('GET', '/api/v1/stop-list/export', { token: account.system });
      expect(exported.status).toBe(200);
      expect(exported.headers.get('content-type')).toMatch(/^text\/csv/);
      const lines = (exported.body as string).trimEnd().split('\r\n');
      expect(lines[0]).toBe('id,number,channelType,senderName,trafficTypes,source,comment,createdTime');
      expect(lines).toHaveLength(3);
      expect(lines[2]).toContain(',79161120002,SMS,Shop,SERVICE;PROMO,import,"said ""stop"", twice",');
      // The export imports into another account's list as it is.
      const b = list(await fresh());
      expect((await b.import(exported.body as string)).body).toMatchObject({ rows: 2, added: 2, errorCount: 0 });
    });

    it('bounds an import: more rows than the limit is 422 and adds nothing; a text too long is refused', async () => {
      const a = list(await fresh());
      const rows = Array.from({ length: 10_001 }, (_, i) => `7916${String(i).padStart(7, '0')}`);
      const over = await a.import(`number\n${rows.join('\n')}\n`);
      expect(over.status).toBe(422);
      expect(over.body.error).toEqual({ code: 4220, msg: 'At most 10000 rows in one import' });
      expect((await a.get()).body.total).toBe(0);
      expect((await a.import('number\n' + '7'.repeat(500_001))).status).toBe(422);
      // The positive control: the limit itself goes.
      expect((await a.import(`number\n${rows.slice(1).join('\n')}\n`)).body).toMatchObject({ added: 10_000 });
    });

    it("exports the operator's list, not an account's", async () => {
      const a = list(await fresh());
      await a.add({ number: '79161130001' });
      await t.admin('POST', '/admin/v1/stop-list', { number: '79161130002' });
      const exported = await t.call('GET', '/admin/v1/stop-list/export', {
        auth: 'Bearer test-admin-token-0123456789abcdef',
      });
      expect(exported.body).toContain(',79161130002,,,,operator,,');
      expect(exported.body).not.toContain('79161130001');
    });
  });

  describe('at generation', () => {
    it('refuses a listed destination with item 4032, free; the others of the batch go and are charged', async () => {
      const account = await fresh();
      await list(account).add({ number: '79161140001' });
      const reply = await send(account, [
        message('SMS', { destination: '79161140001' }),
        message('SMS', { destination: '79161140002' }),
      ]);
      expect(reply.body).toEqual({
        errors: true,
        items: [LISTED, { messageUuid: expect.any(String), code: 201 }],
      });
      expect(await balance(account)).toBe(98);
      const stored = await t.testDb.db.query('SELECT 1 FROM messages WHERE account_id = $1', [account.id]);
      expect(stored).toHaveLength(1);
    });

    it("applies the operator's list to every account, and scopes: an opt-out of PROMO lets AUTHORIZE go", async () => {
      const [one, two] = [await fresh(), await fresh()];
      await t.admin('POST', '/admin/v1/stop-list', { number: '79161150001' });
      await list(one).add({ number: '79161150002', senderName: SENDER, trafficTypes: ['PROMO', 'SERVICE'] });
      await list(one).add({ number: '79161150003', channelType: 'VK' });
      const codes = async (a: TestAccount, messages: Record<string, unknown>[]) =>
        (await send(a, messages)).body.items.map((i: { code: number }) => i.code);
      expect(
        await codes(one, [
          message('SMS', { destination: '79161150001' }),
          message('SMS', { destination: '79161150002', trafficType: 'PROMO' }),
          message('SMS', { destination: '79161150002', trafficType: 'SERVICE' }),
          message('SMS', { destination: '79161150002', trafficType: 'AUTHORIZE' }),
          message('SMS', { destination: '79161150002', trafficType: 'TRANSACT' }),
          message('SMS', { destination: '79161150003' }),
        ]),
      ).toEqual([4032, 4032, 4032, 201, 201, 201]);
      // Another account: the operator's entry applies, the first account's do not.
      expect(
        await codes(two, [
          message('SMS', { destination: '79161150001' }),
          message('SMS', { destination: '79161150002', trafficType: 'PROMO' }),
        ]),
      ).toEqual([4032, 201]);
      // Deleted, the number is sent to again.
      const entry = (await t.admin('GET', '/admin/v1/stop-list?number=79161150001')).body.items[0];
      expect(
        (
          await t.call('DELETE', `/admin/v1/stop-list/${entry.id}`, {
            auth: 'Bearer test-admin-token-0123456789abcdef',
          })
        ).status,
      ).toBe(204);
      expect(await codes(two, [message('SMS', { destination: '79161150001' })])).toEqual([201]);
    });

    it('refuses a cascade whose first step is listed, and a listed destination of a dispatch', async () => {
      const account = await fresh();
      await list(account).add({ number: '79161160001', channelType: 'SMS' });
      const cascades = await t.call('POST', '/api/v1/message/cascade', {
        token: account.traffic,
        body: [
          { destination: '79161160001', cascade: [{ channelType: 'SMS', senderName: SENDER, content: 'a' }] },
          { destination: '79161160002', cascade: [{ channelType: 'SMS', senderName: SENDER, content: 'a' }] },
        ],
      });
      expect(cascades.body.items).toEqual([LISTED, { messageUuid: expect.any(String), code: 201 }]);

      const dispatch = await t.call('POST', '/api/v1/dispatch', {
        token: account.traffic,
        body: { dispatchName: 'March', channelType: 'SMS', senderName: SENDER, content: 'Hello' },
      });
      const added = await t.call('POST', `/api/v1/dispatch/${dispatch.body.dispatchId}/messages`, {
        token: account.traffic,
        body: [{ destination: '79161160001' }, { destination: '79161160002' }],
      });
      expect(added.body).toEqual([
        { destination: '79161160001', errorCode: 4032, msg: LISTED.msg },
        { destination: '79161160002', messageUuid: expect.any(String) },
      ]);
    });

    it('counts refusals at generation in the metrics', async () => {
      const account = await fresh();
      await list(account).add({ number: '79161170001' });
      const metric = async () => {
        const text = (await t.call('GET', '/metrics')).body as string;
        const line = text.split('\n').find((l) => l.startsWith('herald_stop_list_refusals_total{stage="generation"}'));
        return Number(line?.split(' ')[1] ?? 'NaN');
      };
      const before = await metric();
      await send(account, [
        message('SMS', { destination: '79161170001' }),
        message('SMS', { destination: '79161170002' }),
      ]);
      expect(await metric()).toBe(before + 1);
    });
  });
});
