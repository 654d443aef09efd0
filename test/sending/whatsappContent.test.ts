import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, MSISDN, openChatWindow, SENDER } from '../messages/messageFixtures.js';

const wa = (content: Record<string, unknown>) => message('WHATSAPP', { content });
const text = (extra: Record<string, unknown> = {}) => wa({ contentType: 'text', text: 'Hello', ...extra });
const link = (t: string, url: string) => ({ text: t, url });
const call = (t: string, phone: string) => ({ text: t, phone });
const reply = (t: string, payload: string) => ({ text: t, payload });
const s = (n: number) => 'x'.repeat(n);
const image = (imageUrl: string) => wa({ contentType: 'image', imageUrl, imageName: 'a.png' });
const notLink = (field: string) => `Invalid content: ${field} must be an http(s) link`;
const document = (documentUrl: string) => wa({ contentType: 'document', documentUrl, documentName: 'a.pdf' });

type Case = readonly [name: string, body: Record<string, unknown>, expectedMsg: string | null];

// Spec 2.3 and 2.4 with rules 1 to 6; null = accepted.
const CASES: readonly Case[] = [
  // 2.3 content objects
  ['text', text(), null],
  ['text of 1000 characters', wa({ contentType: 'text', text: s(1000) }), null],
  [
    'text of 1001 characters',
    wa({ contentType: 'text', text: s(1001) }),
    'Invalid content: text must be 1 to 1000 characters',
  ],
  ['empty text', wa({ contentType: 'text', text: '' }), 'Blank content'],
  [
    'text with byte order mark',
    wa({ contentType: 'text', text: '\ufeffHi' }),
    'Invalid content: text must not start with a byte order mark',
  ],
  ['image', wa({ contentType: 'image', imageUrl: 'https://x.example/a.png', imageName: 'a.png' }), null],
  [
    'image without imageName',
    wa({ contentType: 'image', imageUrl: 'https://x.example/a.png' }),
    'Invalid content: missing imageName',
  ],
  ['image without imageUrl', wa({ contentType: 'image', imageName: 'a.png' }), 'Invalid content: missing imageUrl'],
  ['document', wa({ contentType: 'document', documentUrl: 'https://x.example/a.pdf', documentName: 'a.pdf' }), null],
  [
    'document without documentName',
    wa({ contentType: 'document', documentUrl: 'https://x.example/a.pdf' }),
    'Invalid content: missing documentName',
  ],
  [
    'unknown contentType',
    wa({ contentType: 'video', videoUrl: 'x' }),
    'Invalid content: contentType must be text, image or document, not "video"',
  ],
  ['missing contentType', wa({ text: 'Hi' }), 'Invalid content: missing contentType'],
  [
    'string content',
    message('WHATSAPP', { content: 'Hi' }),
    'Invalid content: an object with contentType text, image or document is expected',
  ],
  [
    'field of another type',
    wa({ contentType: 'text', text: 'Hi', imageUrl: 'x' }),
    'Invalid content: unknown field imageUrl for contentType text',
  ],
  // header and footer limits; image and document validate them by the same rules as text
  ['header text of 60', text({ header: { text: s(60) } }), null],
  ['header text of 61', text({ header: { text: s(61) } }), 'Invalid content: header.text must be 1 to 60 characters'],
  ['header text empty', text({ header: { text: '' } }), 'Invalid content: header.text must be 1 to 60 characters'],
  ['footer text of 60', text({ footer: { text: s(60) } }), null],
  ['footer text of 61', text({ footer: { text: s(61) } }), 'Invalid content: footer.text must be 1 to 60 characters'],
  [
    'image with header text of 61',
    wa({ contentType: 'image', imageUrl: 'https://x/a.png', imageName: 'a', header: { text: s(61) } }),
    'Invalid content: header.text must be 1 to 60 characters',
  ],
  [
    'document with footer of 61',
    wa({ contentType: 'document', documentUrl: 'https://x/a.pdf', documentName: 'a', footer: { text: s(61) } }),
    'Invalid content: footer.text must be 1 to 60 characters',
  ],
  // rule 1: one header kind
  [
    'header documentUrl with documentName',
    text({ header: { documentUrl: 'https://x/a.pdf', documentName: 'A' } }),
    null,
  ],
  ['header documentUrl alone', text({ header: { documentUrl: 'https://x/a.pdf' } }), null],
  ['header imageUrl', text({ header: { imageUrl: 'https://x/a.png' } }), null],
  [
    'rule 1: header text and imageUrl',
    text({ header: { text: 'T', imageUrl: 'https://x/a.png' } }),
    'Invalid content: header may use only one of text, documentUrl, imageUrl; got text, imageUrl',
  ],
  [
    'rule 1: header documentUrl and imageUrl',
    text({ header: { documentUrl: 'https://x/a.pdf', imageUrl: 'https://x/a.png' } }),
    'Invalid content: header may use only one of text, documentUrl, imageUrl; got documentUrl, imageUrl',
  ],
  [
    'rule 1: documentName without documentUrl',
    text({ header: { documentName: 'A' } }),
    'Invalid content: header.documentName is only allowed together with header.documentUrl',
  ],
  [
    'rule 1: documentName with text',
    text({ header: { text: 'T', documentName: 'A' } }),
    'Invalid content: header.documentName is only allowed together with header.documentUrl',
  ],
  ['empty header', text({ header: {} }), 'Invalid content: header must have text, documentUrl or imageUrl'],
  // button limits
  ['button text of 20', text({ buttons: [reply(s(20), 'p')] }), null],
  [
    'button text of 21',
    text({ buttons: [reply(s(21), 'p')] }),
    'Invalid content: buttons[0].text must be 1 to 20 characters',
  ],
  ['button without text', text({ buttons: [{ payload: 'p' }] }), 'Invalid content: missing buttons[0].text'],
  ['button url of 1000', text({ buttons: [link('Go', `https://${s(992)}`)] }), null],
  [
    'button url of 1001',
    text({ buttons: [link('Go', `https://${s(993)}`)] }),
    'Invalid content: buttons[0].url must be 1 to 1000 characters',
  ],
  [
    'button url not http',
    text({ buttons: [link('Go', 'ftp://x')] }),
    'Invalid content: buttons[0].url must begin with http',
  ],
  ['button phone of 1000', text({ buttons: [call('Call', '7'.repeat(1000))] }), null],
  [
    'button phone of 1001',
    text({ buttons: [call('Call', '7'.repeat(1001))] }),
    'Invalid content: buttons[0].phone must be 1 to 1000 characters',
  ],
  ['button payload of 1000', text({ buttons: [reply('Yes', s(1000))] }), null],
  [
    'button payload of 1001',
    text({ buttons: [reply('Yes', s(1001))] }),
    'Invalid content: buttons[0].payload must be 1 to 1000 characters',
  ],
  ['no buttons', text({ buttons: [] }), 'Invalid content: buttons must be an array of 1 to 3 objects'],
  [
    'four buttons',
    text({ buttons: [reply('a', '1'), reply('b', '2'), reply('c', '3'), reply('d', '4')] }),
    'Invalid content: buttons must be an array of 1 to 3 objects',
  ],
  // rule 2: kinds of buttons
  [
    'rule 2: text only',
    text({ buttons: [{ text: 'Hi' }] }),
    'Invalid content: buttons[0] needs url or phone (link button) or payload (text button)',
  ],
  [
    'rule 2: payload with url',
    text({ buttons: [{ text: 'Hi', payload: 'p', url: 'https://x' }] }),
    'Invalid content: buttons[0]: payload cannot be combined with url or phone',
  ],
  [
    'rule 2: payload with phone',
    text({ buttons: [{ text: 'Hi', payload: 'p', phone: '79161234567' }] }),
    'Invalid content: buttons[0]: payload cannot be combined with url or phone',
  ],
  [
    'rule 2: url with phone',
    text({ buttons: [{ text: 'Hi', url: 'https://x', phone: '79161234567' }] }),
    'Invalid content: buttons[0]: a link button has either url or phone, not both',
  ],
  // rule 3: one type per message
  [
    'rule 3: link and text buttons',
    text({ buttons: [link('Go', 'https://x'), reply('Yes', 'y')] }),
    'Invalid content: buttons must all be of one type: link buttons or text buttons',
  ],
  // rule 4: one url, one phone
  ['rule 4: url and phone buttons', text({ buttons: [link('Go', 'https://x'), call('Call', '79161234567')] }), null],
  [
    'rule 4: two url buttons',
    text({ buttons: [link('A', 'https://a'), link('B', 'https://b')] }),
    'Invalid content: at most one button with url is allowed',
  ],
  [
    'rule 4: two phone buttons',
    text({ buttons: [call('A', '79161234567'), call('B', '79161234568')] }),
    'Invalid content: at most one button with phone is allowed',
  ],
  // rule 5: at most 3 text buttons, at most 2 link buttons
  ['rule 5: three text buttons', text({ buttons: [reply('a', '1'), reply('b', '2'), reply('c', '3')] }), null],
  [
    'rule 5: three link buttons',
    text({ buttons: [link('A', 'https://a'), call('B', '79161234567'), link('C', 'https://c')] }),
    'Invalid content: at most one button with url is allowed',
  ],
  // rule 6: buttons do not affect header or footer
  [
    'rule 6: header, footer and buttons together',
    text({
      header: { text: 'Sale' },
      footer: { text: 'Unsubscribe: STOP' },
      buttons: [link('Go', 'https://x'), call('Call', '79161234567')],
    }),
    null,
  ],
  [
    'rule 6: image header with text buttons',
    text({ header: { imageUrl: 'https://x/a.png' }, buttons: [reply('a', '1')] }),
    null,
  ],
  // media links are absolute http(s) URLs (issue 11 item 8)
  ['image over http', image('http://x.example/a.png'), null],
  ['image without a scheme', image('x.example/a.png'), notLink('imageUrl')],
  ['image over ftp', image('ftp://x.example/a.png'), notLink('imageUrl')],
  ['image as a data URL', image('data:image/png;base64,AAAA'), notLink('imageUrl')],
  ['document relative', document('/files/a.pdf'), notLink('documentUrl')],
  ['document javascript:', document('javascript:alert(1)'), notLink('documentUrl')],
  ['header imageUrl not a link', text({ header: { imageUrl: 'a.png' } }), notLink('header.imageUrl')],
  ['header imageUrl file:', text({ header: { imageUrl: 'file:///etc/passwd' } }), notLink('header.imageUrl')],
  ['header documentUrl not a link', text({ header: { documentUrl: 'a.pdf' } }), notLink('header.documentUrl')],
  ['header documentUrl over http', text({ header: { documentUrl: 'http://x.example/a.pdf' } }), null],
];

describe.each(ENGINES)('WHATSAPP content rules (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount({ channels: { WHATSAPP: true }, senderNames: [['WHATSAPP', SENDER]] });
    // The subscriber wrote: any content may go out, whatever templates the account has (DESIGN 10).
    await openChatWindow(t, account.id, SENDER, MSISDN);
  });
  afterAll(async () => t?.close());

  it.each(CASES)('%s', async (_name, body, expectedMsg) => {
    const reply = await t.call('POST', '/api/v1/message', { token: account.traffic, body: [body] });
    if (expectedMsg === null) {
      expect(reply.body).toMatchObject({ errors: false, items: [{ code: 201 }] });
    } else {
      expect(reply.body).toEqual({ error: { code: 4220, msg: expectedMsg, index: 0 } });
      expect(reply.status).toBe(422);
    }
  });
});
