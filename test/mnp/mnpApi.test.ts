import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mnpBrands } from '../../src/mnp/index.js';
import { ENGINES } from '../helpers/engines.js';
import { ADMIN_TOKEN, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { postImport, startMnpHerald } from './mnpHerald.js';
import { SENDER } from '../messages/messageFixtures.js';

/** The header of the base's full file (Port_All_Full): the columns Herald reads and those it ignores. */
const FULL_HEADER =
  'Number,OwnerId,MNC,Route,RegionCode,PortDate,RowCount,NPId,DonorId,RangeHolderId,OldRoute,OldMNC,ProcessType';
const row = (number: string, owner: string, mnc = '02', date = '2024-03-01T12:00:17+03:00') =>
  `${number},${owner},${mnc},D7702,77,${date},,1000000006441231,mMTS,mMTS,,,ShortTimePort`;

/** In the plan: 916 123xxxx is MTS (МТС), 903 Beeline (ВЫМПЕЛКОМ). */
const PORTED = '79161230001';
const ONLY_FIRST = '79161230002';
const KEPT = '79161230003';

/** The number portability base through the operator API, and a ported number's brand on messages sent after. */
describe.each(ENGINES)('number portability base: API and brands (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    ({ t, account } = await startMnpHerald(engine));
  });
  afterAll(async () => t?.close());

  const upload = (csv: string, token = ADMIN_TOKEN) =>
    t.call('POST', '/admin/v1/mnp/import', {
      auth: `Bearer ${token}`,
      rawBody: csv,
      headers: { 'content-type': 'text/csv' },
    });
  /** Imports a file and waits for its end (done or failed), answering the import. */
  const imported = async (csv: string) => {
    const reply = await upload(csv);
    expect(reply.status).toBe(202);
    expect(reply.body).toEqual({ importId: expect.any(Number), state: 'loading' });
    return waitFor(
      async () => {
        const state = await t.admin('GET', `/admin/v1/mnp/imports/${reply.body.importId}`);
        return ['done', 'failed'].includes(state.body.state) ? state.body : undefined;
      },
      { timeoutMs: 30_000 },
    );
  };
  const brandOfSent = async (destination: string): Promise<string | null> => {
    const [id] = await t.send(account.traffic, [
      { channelType: 'SMS', senderName: SENDER, destination, content: 'Hi' },
    ]);
    const rows = await t.testDb.db.query<{ brand: string | null }>('SELECT brand FROM messages WHERE id = $1', [id]);
    return rows[0]!.brand;
  };

  it('imports a file of the base: its rows, refused rows by line, and the brands of messages sent after', async () => {
    // Before any import the plan's brand.
    expect(await brandOfSent(PORTED)).toBe('МТС');
    const csv = [
      FULL_HEADER,
      row(PORTED.slice(1), 'mMEGAFON'),
      row(ONLY_FIRST, 'mBEELINE', '99'),
      row(KEPT.slice(1), 'mTELE2', '20'),
      row('79031230004', 'mSOMENEWOP', '77'),
      row('12345', 'mMTS'),
      row('9161230005', 'mMTS', 'x'),
      row('9161230006', 'mMTS', '01', 'yesterday'),
      row('9161230007', 'mMTS'),
      '',
    ].join('\r\n');
    const done = await imported(csv);
    expect(done).toEqual({
      id: expect.any(Number),
      state: 'done',
      bytes: Buffer.byteLength(csv),
      rows: 8,
      loaded: 5,
      errorCount: 3,
      duplicates: 0,
      errors: [
        { line: 6, msg: 'Invalid Number: "12345" (10 digits, or 11 starting with 7)' },
        { line: 7, msg: 'Invalid MNC: "x"' },
        { line: 8, msg: 'Invalid PortDate: "yesterday"' },
      ],
      failure: null,
      startedTime: t.clock.now().toISOString(),
      finishedTime: t.clock.now().toISOString(),
    });
    // The plan's names of the same operators; an operator the mapping does not know keeps the base's name.
    expect(await mnpBrands(t.testDb.db, [PORTED, ONLY_FIRST, KEPT, '79031230004', '79161239999', 'x'])).toEqual(
      new Map([
        [PORTED, 'МЕГАФОН'],
        [ONLY_FIRST, 'ВЫМПЕЛКОМ'],
        [KEPT, 'Т2 Мобайл'],
        ['79031230004', 'mSOMENEWOP'],
      ]),
    );
    expect(await brandOfSent(PORTED)).toBe('МЕГАФОН');
    expect(await brandOfSent('79161239999')).toBe('МТС');
  });

  it('replaces the whole base with the next import; a mostly invalid file fails and leaves it', async () => {
    const second = await imported(
      ['Number,OwnerId,MNC,Route,RegionCode,PortDate', `${PORTED},mBEELINE,99,D7799,77,2025-01-01T10:00:00+03:00`]
        .concat([`${KEPT},mMTS,01,D7701,77,2025-01-02T10:00:00+03:00`, `${KEPT},mMEGAFON,02,,,`])
        .join('\n'),
    );
    // The repeated number keeps its latest port.
    expect(second).toMatchObject({ state: 'done', rows: 3, loaded: 3, duplicates: 1, errorCount: 0 });
    expect(await mnpBrands(t.testDb.db, [PORTED, ONLY_FIRST, KEPT])).toEqual(
      new Map([
        [PORTED, 'ВЫМПЕЛКОМ'],
        [KEPT, 'МТС'],
      ]),
    );
    expect(await brandOfSent(ONLY_FIRST)).toBe('МТС');
    expect(await brandOfSent(PORTED)).toBe('ВЫМПЕЛКОМ');

    const bad = await imported(['Number,OwnerId', `${ONLY_FIRST},mMTS`, 'abc,mMTS', '1,mMTS', ',mMTS'].join('\n'));
    expect(bad).toMatchObject({
      state: 'failed',
      rows: 4,
      loaded: 1,
      errorCount: 3,
      failure: '3 of 4 rows are invalid: the current base is kept',
      finishedTime: expect.any(String),
    });
    expect(bad.errors.map((e: { line: number }) => e.line)).toEqual([3, 4, 5]);
    const noHeader = await imported('Phone;Operator\n79161230001;mMTS\n');
    expect(noHeader).toMatchObject({ state: 'failed', failure: expect.stringMatching(/^Line 1: The first line/) });
    expect(await mnpBrands(t.testDb.db, [PORTED, KEPT])).toEqual(
      new Map([
        [PORTED, 'ВЫМПЕЛКОМ'],
        [KEPT, 'МТС'],
      ]),
    );
    // The failed imports' tables are gone; the base is one table.
    const tables = await t.testDb.db.query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE tablename LIKE 'mnp_numbers%' AND schemaname = current_schema()`,
    );
    expect(tables.map((r) => r.name)).toEqual(['mnp_numbers']);
  });

  it('takes a file without a header in the columns of Port_All', async () => {
    const done = await imported(`${PORTED.slice(1)},mMTS,01,D7701,77,2025-02-01T00:00:00+03:00,1\n`);
    expect(done).toMatchObject({ state: 'done', rows: 1, loaded: 1 });
    expect(await mnpBrands(t.testDb.db, [PORTED])).toEqual(new Map([[PORTED, 'МТС']]));
  });

  it('answers 404 for an unknown import, and refuses other tokens and other media types', async () => {
    const unknown = await t.admin('GET', '/admin/v1/mnp/imports/999999');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: { code: 4040, msg: 'Import 999999 not found' } });
    expect((await t.call('GET', '/admin/v1/mnp/imports/1', { token: account.system })).status).toBe(401);
    expect((await t.call('GET', '/admin/v1/mnp/imports/1')).status).toBe(401);
    const withClientToken = await t.call('POST', '/admin/v1/mnp/import', {
      token: account.system,
      rawBody: 'Number,OwnerId\n9161230001,mMTS\n',
      headers: { 'content-type': 'text/csv' },
    });
    expect(withClientToken.status).toBe(401);
    expect((await upload('x', 'not-the-admin-token-0123456789')).status).toBe(401);
    const json = await t.admin('POST', '/admin/v1/mnp/import', { csv: 'Number,OwnerId' });
    expect(json.status).toBe(415);
    expect(json.body).toEqual({ error: { code: 4150, msg: 'Content-Type must be text/csv' } });
    const none = await t.call('POST', '/admin/v1/mnp/import', {
      auth: `Bearer ${ADMIN_TOKEN}`,
      rawBody: Buffer.from('x'),
    });
    expect(none.status).toBe(415);
  });

  it('refuses a second import while one is receiving (409)', async () => {
    let finish!: () => void;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('Number,OwnerId\n'));
        finish = () => {
          controller.enqueue(new TextEncoder().encode(`${PORTED},mMEGAFON\n`));
          controller.close();
        };
      },
    });
    const first = postImport(t, body);
    await waitFor(async () =>
      (await t.testDb.db.query(`SELECT 1 FROM mnp_imports WHERE state = 'receiving'`)).length > 0 ? true : undefined,
    );
    const second = await upload('Number,OwnerId\n9161230001,mMTS\n');
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe(4091);
    finish();
    const answer = await first;
    expect(answer.status).toBe(202);
    const { importId } = (await answer.json()) as { importId: number };
    await waitFor(async () => (await t.admin('GET', `/admin/v1/mnp/imports/${importId}`)).body.state === 'done');
    expect(await mnpBrands(t.testDb.db, [PORTED])).toEqual(new Map([[PORTED, 'МЕГАФОН']]));
  });
});
