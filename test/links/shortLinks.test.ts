import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_LENGTH, linkCount, newCode, shortenText } from '../../src/links/shortLinks.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { Receiver } from '../helpers/receiver.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { message, SENDER } from '../messages/messageFixtures.js';

describe('link shortening', () => {
  it('replaces every http(s) link, leaving trailing punctuation in the sentence', () => {
    const { text, links } = shortenText(
      'See https://shop.example/a?b=1, and http://x.example/y. Thanks!',
      'https://s.example/l',
    );
    expect(links.map((l) => l.url)).toEqual(['https://shop.example/a?b=1', 'http://x.example/y']);
    expect(text).toBe(`See https://s.example/l/${links[0]!.code}, and https://s.example/l/${links[1]!.code}. Thanks!`);
  });

  it('leaves trailing punctuation out in linear time, however long the run', () => {
    const started = performance.now();
    const { links } = shortenText(`see http://a${'.'.repeat(200_000)}x${'!'.repeat(200_000)}`, 'https://s.example/l');
    // The regular expression this replaced took about 80 s over this text (quadratic); a loop takes milliseconds.
    expect(performance.now() - started).toBeLessThan(1000);
    expect(links.map((l) => l.url)).toEqual([`http://a${'.'.repeat(200_000)}x/`]);
  });

  it('keeps links as the URL parser writes them, and leaves a link that is no URL in the text', () => {
    const { text, links } = shortenText(
      'Buy http://shop.example/€uro?q=ж#я! or HTTP://Shop.Example, not http://[ or http://',
      'https://s.example/l',
    );
    expect(links.map((l) => l.url)).toEqual([
      'http://shop.example/%E2%82%ACuro?q=%D0%B6#%D1%8F',
      'http://shop.example/',
    ]);
    expect(text).toBe(
      `Buy https://s.example/l/${links[0]!.code}! or https://s.example/l/${links[1]!.code}, not http://[ or http://`,
    );
  });

  it('counts links up to one more than asked', () => {
    expect(linkCount('a http://a b https://b. c', 10)).toBe(2);
    expect(linkCount('http://a '.repeat(100_000), 10)).toBe(11);
  });

  it('makes unguessable codes: 10 characters of 62, all different', () => {
    const codes = new Set(Array.from({ length: 10_000 }, newCode));
    expect(codes.size).toBe(10_000);
    for (const code of codes) expect(code).toMatch(new RegExp(`^[A-Za-z0-9]{${CODE_LENGTH}}$`));
  });
});

describe.each(ENGINES)('short links over HTTP (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  let receiver: Receiver;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    t = await startTestHerald(engine, {
      delivery: { delayMs: 10 },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
      // Clicks from addresses of their own come through the loopback as a trusted proxy (X-Forwarded-For).
      env: {
        HERALD_SHORT_URL_BASE: 'http://127.0.0.1:1/s',
        HERALD_CALLBACK_ALLOW_PRIVATE: 'true',
        HERALD_TRUST_PROXY: '127.0.0.1',
      },
    });
    account = await t.createAccount({ senderNames: [['SMS', SENDER]] });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.stop();
  });

  it('shortens links before counting parts, redirects, counts the click and sends the click event', async () => {
    const long = `Sale: https://shop.example/${'x'.repeat(200)}`;
    const reply = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('SMS', { content: long, shortUrl: true, callbackUrl: receiver.url, callbackEvents: ['click'] })],
    });
    const id = reply.body.items[0].messageUuid;
    const object = (await t.call('GET', `/api/v1/message/${id}`, { token: account.traffic })).body;
    expect(object.content).toMatch(/^Sale: http:\/\/127\.0\.0\.1:1\/s\/[A-Za-z0-9]{10}$/);
    expect(object.totalParts).toBe(1);
    const code = object.content.split('/').at(-1);

    const follow = await fetch(`${t.url}/s/${code}`, { redirect: 'manual' });
    expect(follow.status).toBe(302);
    expect(follow.headers.get('location')).toBe(`https://shop.example/${'x'.repeat(200)}`);
    const [link] = await t.testDb.db.query<{ clicks: number }>('SELECT clicks FROM short_links WHERE code = $1', [
      code,
    ]);
    expect(link!.clicks).toBe(1);
    await waitFor(() => receiver.events().some((e) => e.message_uuid === id));
    expect(receiver.events().find((e) => e.message_uuid === id)).toEqual({
      message_uuid: id,
      channel_type: 'SMS',
      callback_event: 'click',
      url: `https://shop.example/${'x'.repeat(200)}`,
      short_url: `http://127.0.0.1:1/s/${code}`,
      click_time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
    });
  });

  it("calls a click on a cascade step back with the cascade's root and the step", async () => {
    const reply = await t.call('POST', '/api/v1/message/cascade', {
      token: account.traffic,
      body: [
        {
          destination: '79161234566',
          shortUrl: true,
          callbackUrl: receiver.url,
          callbackEvents: ['click'],
          cascade: [
            {
              channelType: 'SMS',
              senderName: SENDER,
              content: 'Track: https://shop.example/t',
              condition: 'not_delivered',
            },
            { channelType: 'VK', senderName: 'club1', content: 'Track: https://shop.example/t' },
          ],
        },
      ],
    });
    const root = reply.body.items[0].messageUuid;
    const object = (await t.call('GET', `/api/v1/message/${root}`, { token: account.traffic })).body;
    const code = object.content.split('/').at(-1);
    expect((await fetch(`${t.url}/s/${code}`, { redirect: 'manual' })).status).toBe(302);
    await waitFor(() => receiver.events().some((e) => e.message_uuid === root));
    expect(receiver.events().find((e) => e.message_uuid === root)).toMatchObject({
      callback_event: 'click',
      cascade_message_uuid: root,
      cascade_step: 1,
      url: 'https://shop.example/t',
    });
  });

  it('shortens at most 10 links of a message: more are refused with the index of the message', async () => {
    const links = (n: number) => Array.from({ length: n }, (_, i) => `https://a.example/${i}`).join(' ');
    const reply = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [
        message('SMS', { content: links(10), shortUrl: true }),
        message('SMS', { content: links(11), shortUrl: true }),
      ],
    });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({
      error: { code: 4220, msg: 'Invalid content: at most 10 links can be shortened in one message', index: 1 },
    });
    // Without shortUrl the links are text like any other.
    const plain = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('SMS', { content: links(11) })],
    });
    expect(plain.body.items[0].code).toBe(201);
  });

  it('checks the length limits again after shortening: a text they push over its limit is refused', async () => {
    // 10 links of 8 characters become 10 of 31 (the base and a code): 230 characters more than the 1000 VIBER takes.
    const text = `${'http://a '.repeat(10)}${'x'.repeat(1000 - 90)}`;
    const reply = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [
        message('VIBER', { content: { contentType: 'text', text }, shortUrl: true }),
        message('SMS', { content: 'Go http://a', shortUrl: true }),
      ],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.items[0]).toEqual({ code: 4220, msg: 'Invalid content: too long once its links are shortened' });
    expect(reply.body.items[1].code).toBe(201);
    // SMS parts are counted again: 255 parts of 153 characters at most.
    const sms = `${'http://a '.repeat(10)}${'x'.repeat(255 * 153 - 90)}`;
    const over = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('SMS', { content: sms, shortUrl: true })],
    });
    expect(over.body.items[0]).toEqual({ code: 4220, msg: 'Invalid content: too long once its links are shortened' });
  });

  it('redirects a link with characters a Location header cannot carry to its percent-encoded form', async () => {
    const reply = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [
        message('SMS', { content: 'Скидки: https://магазин.example/каталог?q=€ и http://[ тоже', shortUrl: true }),
      ],
    });
    const object = (
      await t.call('GET', `/api/v1/message/${reply.body.items[0].messageUuid}`, { token: account.traffic })
    ).body;
    expect(object.content).toMatch(/^Скидки: http:\/\/127\.0\.0\.1:1\/s\/[A-Za-z0-9]{10} и http:\/\/\[ тоже$/);
    const follow = await fetch(`${t.url}/s/${object.content.split(' ')[1].split('/').at(-1)}`, { redirect: 'manual' });
    expect(follow.status).toBe(302);
    expect(follow.headers.get('location')).toBe(
      'https://xn--80aairftm.example/%D0%BA%D0%B0%D1%82%D0%B0%D0%BB%D0%BE%D0%B3?q=%E2%82%AC',
    );
  });

  it('redirects a link stored before links were normalised', async () => {
    const reply = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('SMS', { content: 'Hi http://a.example', shortUrl: true })],
    });
    const code = (
      await t.call('GET', `/api/v1/message/${reply.body.items[0].messageUuid}`, { token: account.traffic })
    ).body.content
      .split('/')
      .at(-1);
    await t.testDb.db.query(`UPDATE short_links SET url = 'https://a.example/€' WHERE code = $1`, [code]);
    const follow = await fetch(`${t.url}/s/${code}`, { redirect: 'manual' });
    expect(follow.status).toBe(302);
    expect(follow.headers.get('location')).toBe('https://a.example/%E2%82%AC');
  });

  it('records a click once per address and minute; a repeated one is redirected all the same', async () => {
    const reply = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('SMS', { content: 'Hi https://b.example/x', shortUrl: true })],
    });
    const code = (
      await t.call('GET', `/api/v1/message/${reply.body.items[0].messageUuid}`, { token: account.traffic })
    ).body.content
      .split('/')
      .at(-1);
    const click = async () => {
      const follow = await fetch(`${t.url}/s/${code}`, { redirect: 'manual' });
      return [follow.status, follow.headers.get('location')];
    };
    const clicks = async () =>
      (await t.testDb.db.query<{ clicks: number }>('SELECT clicks FROM short_links WHERE code = $1', [code]))[0]!
        .clicks;
    expect(await Promise.all([click(), click(), click()])).toEqual(Array(3).fill([302, 'https://b.example/x']));
    expect(await clicks()).toBe(1);
    t.clock.advance(59_000);
    expect(await click()).toEqual([302, 'https://b.example/x']);
    expect(await clicks()).toBe(1);
    t.clock.advance(1_000);
    expect(await click()).toEqual([302, 'https://b.example/x']);
    expect(await clicks()).toBe(2);
  });

  it('records the clicks of one IPv6 /64 as those of one client: its other addresses record nothing more', async () => {
    const reply = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('SMS', { content: 'Hi https://c.example/x', shortUrl: true })],
    });
    const code = (
      await t.call('GET', `/api/v1/message/${reply.body.items[0].messageUuid}`, { token: account.traffic })
    ).body.content
      .split('/')
      .at(-1);
    const clickFrom = async (address: string) => {
      const follow = await fetch(`${t.url}/s/${code}`, { redirect: 'manual', headers: { 'x-forwarded-for': address } });
      return [follow.status, follow.headers.get('location')];
    };
    const clicks = async () =>
      (await t.testDb.db.query<{ clicks: number }>('SELECT clicks FROM short_links WHERE code = $1', [code]))[0]!
        .clicks;
    const sameSubscriber = ['2001:db8:7:1::1', '2001:db8:7:1::2', '2001:db8:7:1:abcd:ef01:2345:6789'];
    for (const address of sameSubscriber) expect(await clickFrom(address)).toEqual([302, 'https://c.example/x']);
    expect(await clicks()).toBe(1);
    expect(await clickFrom('2001:db8:7:2::1')).toEqual([302, 'https://c.example/x']);
    expect(await clicks()).toBe(2);
  });

  it('answers 404 for an unknown code', async () => {
    expect((await fetch(`${t.url}/s/AAAAAAAAAA`, { redirect: 'manual' })).status).toBe(404);
    expect((await fetch(`${t.url}/s/short`, { redirect: 'manual' })).status).toBe(404);
  });

  it('counts unknown codes as failed authentications of the address', async () => {
    const limited = await startTestHerald(engine, {
      env: { HERALD_SHORT_URL_BASE: 'http://127.0.0.1:1/s', HERALD_AUTH_FAILURE_LIMIT: '3' },
    });
    try {
      const statuses = [];
      for (const code of ['AAAAAAAAAA', 'AAAAAAAAAB', 'AAAAAAAAAC', 'AAAAAAAAAD']) {
        statuses.push((await fetch(`${limited.url}/s/${code}`, { redirect: 'manual' })).status);
      }
      expect(statuses).toEqual([404, 404, 404, 429]);
    } finally {
      await limited.close();
    }
  });

  it('shortens WhatsApp-like object text too (VIBER text)', async () => {
    const reply = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('VIBER', { content: { contentType: 'text', text: 'Go https://a.example/b' }, shortUrl: true })],
    });
    const object = (
      await t.call('GET', `/api/v1/message/${reply.body.items[0].messageUuid}`, { token: account.traffic })
    ).body;
    expect(object.content.text).toMatch(/^Go http:\/\/127\.0\.0\.1:1\/s\/[A-Za-z0-9]{10}$/);
  });
});
