import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  shortLinkClick,
  shortLinkInsert,
  shortLinkUnsubscribeConfirmed,
  shortLinkUnsubscribeTarget,
} from '../../src/links/shortLinkSql.js';
import { insertUnsubscribeLink } from '../../src/links/shortLinks.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { insertAccount, insertMessage } from '../factories/rows.js';

const NOW = new Date('2026-03-10T09:00:00Z');

describe('{unsubscribe} in a text', () => {
  it('becomes one link of the message wherever it stands; a text without it gets none', () => {
    const { text, link } = insertUnsubscribeLink('Sale! {unsubscribe} or {unsubscribe}.', 'https://s.example/l');
    expect(link).toEqual({ code: expect.stringMatching(/^[A-Za-z0-9]{10}$/), url: null });
    expect(text).toBe(`Sale! https://s.example/l/u/${link!.code} or https://s.example/l/u/${link!.code}.`);
    expect(insertUnsubscribeLink('No link {unsubscribed}', 'https://s.example/l')).toEqual({
      text: 'No link {unsubscribed}',
      link: undefined,
    });
  });
});

describe.each(ENGINES)('unsubscribe links in short_links (%s)', (engine) => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await openTestDb(engine);
  });
  afterAll(async () => {
    await testDb?.drop();
  });

  it('an unsubscribe link names its message, is no redirect, and keeps its first confirmation', async () => {
    const { db } = testDb;
    const account = await insertAccount(db);
    const messageId = await insertMessage(db, {
      accountId: account.id,
      channel: 'VIBER',
      senderName: 'Shop',
      destination: '79161230009',
    });
    await shortLinkInsert(
      db,
      account.id,
      [
        { messageId, code: 'Unsub00001', url: null },
        { messageId, code: 'Redirect01', url: 'https://shop.example/' },
      ],
      NOW,
    );
    expect(await shortLinkUnsubscribeTarget(db, 'Unsub00001')).toEqual({
      account_id: account.id,
      message_id: messageId,
      channel_type: 'VIBER',
      sender_name: 'Shop',
      destination: '79161230009',
      last_click_at: null,
    });
    // Each kind answers only its own route.
    expect(await shortLinkUnsubscribeTarget(db, 'Redirect01')).toBeUndefined();
    expect(await shortLinkClick(db, 'Unsub00001', 'https://s.example/l/Unsub00001', NOW)).toBeUndefined();
    expect(await shortLinkClick(db, 'Redirect01', 'https://s.example/l/Redirect01', NOW)).toMatchObject({
      url: 'https://shop.example/',
    });

    await shortLinkUnsubscribeConfirmed(db, 'Unsub00001', NOW);
    await shortLinkUnsubscribeConfirmed(db, 'Unsub00001', new Date(NOW.getTime() + 60_000));
    expect((await shortLinkUnsubscribeTarget(db, 'Unsub00001'))?.last_click_at).toEqual(NOW);
    // Not a click of the statistics.
    const [row] = await db.query<{ clicks: number }>("SELECT clicks FROM short_links WHERE code = 'Unsub00001'");
    expect(row!.clicks).toBe(0);
  });

  it('a link with a url is never an unsubscribe link, nor one without a url a redirect', async () => {
    const { db } = testDb;
    const account = await insertAccount(db);
    const messageId = await insertMessage(db, { accountId: account.id });
    await expect(
      db.query(
        `INSERT INTO short_links (code, account_id, message_id, url, unsubscribe, created_at)
         VALUES ('Broken0001', $1, $2, NULL, false, $3)`,
        [account.id, messageId, NOW],
      ),
    ).rejects.toThrow(/short_links_unsubscribe_has_no_url/);
  });
});
