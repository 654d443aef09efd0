import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel } from '../../src/shared/channels.js';
import { ENGINES } from '../helpers/engines.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { BOT, message, type Refusal, refused, SENDER } from '../messages/messageFixtures.js';

// The test clock stands at 2026-03-10T09:00:00Z (12:00 in Moscow), so the spec's time bounds in Moscow are:
// localSendTime [2026-03-10 00:00:00, 2026-03-17 12:00:00], localCompletionTime up to 2026-05-19 12:00:00.
const OK = 'accepted' as const;
type Case = readonly [name: string, body: Record<string, unknown>, expected: typeof OK | Refusal];

const long = (n: number, char = 'a'): string => char.repeat(n);
const BEFORE_NOW = refused('Local completion time is less than minimal 2026-03-10 12:00:00');
const pastSend = (localCompletionTime: string) => ({ localSendTime: '2026-03-10 10:00:00', localCompletionTime });
/** A message whose times are Moscow's (useLocalTime false). */
const moscow = (changes: Record<string, unknown>) => message('SMS', { useLocalTime: false, ...changes });
/** A message to a subscriber in Tokyo (UTC+9), whose times are Tokyo's. */
const tokyo = (changes: Record<string, unknown>) => message('VK', { destination: '819012345678', ...changes });
const NO_EVENTS = refused('Invalid callbackEvents: []');
const NO_URL = refused('Invalid callbackUrl');

const CASES: Readonly<Record<string, readonly Case[]>> = {
  'channelType and required fields': [
    ['missing channelType', message('SMS', { channelType: undefined }), refused('Missing channelType')],
    ['unknown channelType', message('SMS', { channelType: 'MMS' }), refused('Invalid channelType: "MMS"')],
    ['lower-case channelType', message('SMS', { channelType: 'sms' }), refused('Invalid channelType: "sms"')],
    ['missing senderName', message('SMS', { senderName: undefined }), refused('Missing senderName')],
    ['missing destination', message('SMS', { destination: undefined }), refused('Missing destination')],
    ['missing content', message('SMS', { content: undefined }), refused('Missing content')],
    ['null optional field is absent', message('SMS', { ttl: null, tags: null }), OK],
    ['unknown field', message('SMS', { priority: 1 }), refused('Invalid priority')],
  ],
  'fields a channel accepts (spec 2.2)': [
    ['SMS refuses externalMessageId', message('SMS', { externalMessageId: 'x' }), refused('Invalid externalMessageId')],
    ['VK refuses externalMessageId', message('VK', { externalMessageId: 'x' }), refused('Invalid externalMessageId')],
    [
      'WHATSAPP refuses externalMessageId',
      message('WHATSAPP', { externalMessageId: 'x' }),
      refused('Invalid externalMessageId'),
    ],
    [
      'VIBER refuses externalMessageId',
      message('VIBER', { externalMessageId: 'x' }),
      refused('Invalid externalMessageId'),
    ],
    [
      'FLASHCALL accepts tags and callbacks',
      message('FLASHCALL', { tags: ['a'], callbackUrl: 'https://example.com/cb', callbackEvents: ['delivered'] }),
      OK,
    ],
    ['FLASHCALL refuses ttl', message('FLASHCALL', { ttl: 100 }), refused('Invalid ttl')],
    ['FLASHCALL refuses hours', message('FLASHCALL', { hours: [1] }), refused('Invalid hours')],
    [
      'FLASHCALL refuses localSendTime',
      message('FLASHCALL', { localSendTime: '2026-03-10 12:00:00' }),
      refused('Invalid localSendTime'),
    ],
    ['FLASHCALL refuses shortUrl', message('FLASHCALL', { shortUrl: false }), refused('Invalid shortUrl')],
    ['FLASHCALL refuses useLocalTime', message('FLASHCALL', { useLocalTime: true }), refused('Invalid useLocalTime')],
    [
      'VOICECODE accepts ttl and externalMessageId',
      message('VOICECODE', { ttl: 30, externalMessageId: 'order-1', tags: ['otp'] }),
      OK,
    ],
    ['VOICECODE refuses days', message('VOICECODE', { days: [1] }), refused('Invalid days')],
    [
      'VOICECODE refuses localCompletionTime',
      message('VOICECODE', { localCompletionTime: '2026-03-11 10:00:00' }),
      refused('Invalid localCompletionTime'),
    ],
    ['VOICECODE refuses shortUrl', message('VOICECODE', { shortUrl: true }), refused('Invalid shortUrl')],
    [
      'SMS accepts every other field',
      message('SMS', {
        tags: ['t1'],
        useLocalTime: false,
        localSendTime: '2026-03-10 10:00:00',
        localCompletionTime: '2026-03-10 20:00:00',
        ttl: 3600,
        hours: [9, 10],
        days: [1, 2],
        shortUrl: false,
        callbackUrl: 'https://example.com/cb',
        callbackEvents: ['sent'],
      }),
      OK,
    ],
  ],
  'senderName (spec 2.2)': [
    ['SMS approved name', message('SMS'), OK],
    ['SMS unknown name', message('SMS', { senderName: 'Foo' }), refused('No active sender name: (SMS, Foo)')],
    [
      'SMS name approved for WHATSAPP only',
      message('SMS', { senderName: 'WaOnly' }),
      refused('No active sender name: (SMS, WaOnly)'),
    ],
    [
      'SMS name not yet started',
      message('SMS', { senderName: 'Later' }),
      refused('No active sender name: (SMS, Later)'),
    ],
    [
      'SMS name is case-sensitive',
      message('SMS', { senderName: 'herald' }),
      refused('No active sender name: (SMS, herald)'),
    ],
    ['WHATSAPP approved name', message('WHATSAPP', { senderName: 'WaOnly' }), OK],
    [
      'WHATSAPP unknown name',
      message('WHATSAPP', { senderName: 'Foo' }),
      refused('No active sender name: (WHATSAPP, Foo)'),
    ],
    ['VOICECODE voicecode', message('VOICECODE'), OK],
    [
      'VOICECODE other name',
      message('VOICECODE', { senderName: 'Herald' }),
      refused('No active sender name: (VOICECODE, Herald)'),
    ],
    ['FLASHCALL any string', message('FLASHCALL', { senderName: 'whatever 123' }), OK],
    ['VK any non-empty string', message('VK', { senderName: 'x' }), OK],
    ['VK empty string', message('VK', { senderName: '' }), refused('Invalid senderName: ""')],
    ['senderName not a string', message('VK', { senderName: 5 }), refused('Invalid senderName: 5')],
    // DESIGN 12: at most 64 characters on every channel; the value is not echoed.
    ['VK name of 64 characters', message('VK', { senderName: long(64) }), OK],
    ['VK name of 64 emoji', message('VK', { senderName: long(64, '😀') }), OK],
    ['VK name of 65 characters', message('VK', { senderName: long(65) }), refused('Invalid senderName')],
    ['FLASHCALL name of 64 characters', message('FLASHCALL', { senderName: long(64) }), OK],
    ['FLASHCALL name of 65 characters', message('FLASHCALL', { senderName: long(65) }), refused('Invalid senderName')],
    ['VIBER name of 65 characters', message('VIBER', { senderName: long(65) }), refused('Invalid senderName')],
    ['SMS name of 65 characters', message('SMS', { senderName: long(65) }), refused('Invalid senderName')],
    ['WHATSAPP name of 65 characters', message('WHATSAPP', { senderName: long(65) }), refused('Invalid senderName')],
    ['VOICECODE name of 65 characters', message('VOICECODE', { senderName: long(65) }), refused('Invalid senderName')],
    ['VK name of 100,000 characters', message('VK', { senderName: long(100_000) }), refused('Invalid senderName')],
  ],
  'destination (DESIGN 4)': [
    ['E.164 digits', message('SMS', { destination: '79161234567' }), OK],
    ['with + and separators', message('SMS', { destination: '+7 (916) 123-45-67' }), OK],
    ['Russian national 8', message('SMS', { destination: '89161234567' }), OK],
    ['other country', message('SMS', { destination: '+4915112345678' }), OK],
    ['too short', message('SMS', { destination: '7916123' }), refused('Invalid msisdn')],
    ['too long', message('SMS', { destination: '7916123456789012' }), refused('Invalid msisdn')],
    ['letters', message('SMS', { destination: '7916abc4567' }), refused('Invalid msisdn')],
    ['no such numbering', message('SMS', { destination: '70001234567' }), refused('Invalid msisdn')],
    ['number, not string', message('SMS', { destination: 79161234567 }), refused('Invalid msisdn')],
    ['empty', message('SMS', { destination: '' }), refused('Invalid msisdn')],
  ],
  'content per channel': [
    ['SMS empty', message('SMS', { content: '' }), refused('Blank content')],
    ['SMS blank', message('SMS', { content: '   ' }), refused('Blank content')],
    ['SMS with byte order mark', message('SMS', { content: '\ufeffHello' }), refused('Invalid content')],
    ['SMS object', message('SMS', { content: { text: 'x' } }), refused('Invalid content')],
    ['SMS 255 parts', message('SMS', { content: long(255 * 153) }), OK],
    ['SMS 256 parts', message('SMS', { content: long(255 * 153 + 1) }), refused('Invalid content')],
    ['FLASHCALL 4 digits', message('FLASHCALL', { content: '0000' }), OK],
    ['FLASHCALL 3 digits', message('FLASHCALL', { content: '123' }), refused('Invalid content')],
    ['FLASHCALL 5 digits', message('FLASHCALL', { content: '12345' }), refused('Invalid content')],
    ['FLASHCALL letters', message('FLASHCALL', { content: '12a4' }), refused('Invalid content')],
    // DESIGN 12: the code as a string, or as an integer 1000-9999.
    ['FLASHCALL number', message('FLASHCALL', { content: 1234 }), OK],
    ['FLASHCALL number 1000', message('FLASHCALL', { content: 1000 }), OK],
    ['FLASHCALL number 9999', message('FLASHCALL', { content: 9999 }), OK],
    ['FLASHCALL number 999', message('FLASHCALL', { content: 999 }), refused('Invalid content')],
    ['FLASHCALL number 10000', message('FLASHCALL', { content: 10000 }), refused('Invalid content')],
    ['FLASHCALL fractional number', message('FLASHCALL', { content: 1234.5 }), refused('Invalid content')],
    ['FLASHCALL negative number', message('FLASHCALL', { content: -1234 }), refused('Invalid content')],
    ['FLASHCALL boolean', message('FLASHCALL', { content: true }), refused('Invalid content')],
    ['FLASHCALL empty', message('FLASHCALL', { content: '' }), refused('Blank content')],
    ['VK 2048 characters', message('VK', { content: long(2048) }), OK],
    ['VK 2048 emoji (code points)', message('VK', { content: long(2048, '😀') }), OK],
    ['VK 2049 characters', message('VK', { content: long(2049) }), refused('Invalid content')],
    ['VK empty', message('VK', { content: '' }), refused('Blank content')],
    ['VK with byte order mark', message('VK', { content: '\ufeffHi' }), refused('Invalid content')],
    [
      'VOICECODE code with spaces',
      message('VOICECODE', { content: { contentType: 'text', text: 'Код авторизации от Shop: 1 2 3 4.' } }),
      OK,
    ],
    [
      'VOICECODE code with dashes',
      message('VOICECODE', { content: { contentType: 'text', text: 'Код авторизации от My Shop: 12-34.' } }),
      OK,
    ],
    [
      'VOICECODE 6-digit code',
      message('VOICECODE', { content: { contentType: 'text', text: 'Код авторизации от Shop: 123456.' } }),
      OK,
    ],
    [
      'VOICECODE other wording',
      message('VOICECODE', { content: { contentType: 'text', text: 'Ваш код: 1234.' } }),
      refused('Invalid content'),
    ],
    [
      'VOICECODE no final dot',
      message('VOICECODE', { content: { contentType: 'text', text: 'Код авторизации от Shop: 1234' } }),
      refused('Invalid content'),
    ],
    [
      'VOICECODE letters in code',
      message('VOICECODE', { content: { contentType: 'text', text: 'Код авторизации от Shop: 12a4.' } }),
      refused('Invalid content'),
    ],
    [
      'VOICECODE no brand',
      message('VOICECODE', { content: { contentType: 'text', text: 'Код авторизации от : 1234.' } }),
      refused('Invalid content'),
    ],
    [
      'VOICECODE 1000 characters',
      message('VOICECODE', { content: { contentType: 'text', text: `Код авторизации от ${long(1000 - 26)}: 1234.` } }),
      OK,
    ],
    [
      'VOICECODE 1001 characters',
      message('VOICECODE', { content: { contentType: 'text', text: `Код авторизации от ${long(1001 - 26)}: 1234.` } }),
      refused('Invalid content'),
    ],
    [
      'VOICECODE empty text',
      message('VOICECODE', { content: { contentType: 'text', text: '' } }),
      refused('Blank content'),
    ],
    [
      'VOICECODE wrong contentType',
      message('VOICECODE', { content: { contentType: 'audio', text: 'Код авторизации от Shop: 1234.' } }),
      refused('Invalid content'),
    ],
    [
      'VOICECODE missing contentType',
      message('VOICECODE', { content: { text: 'Код авторизации от Shop: 1234.' } }),
      refused('Invalid content'),
    ],
    [
      'VOICECODE string content',
      message('VOICECODE', { content: 'Код авторизации от Shop: 1234.' }),
      refused('Invalid content'),
    ],
    ['VIBER text', message('VIBER', { content: { contentType: 'text', text: long(1000) } }), OK],
    [
      'VIBER text too long',
      message('VIBER', { content: { contentType: 'text', text: long(1001) } }),
      refused('Invalid content: text must be 1 to 1000 characters'),
    ],
    [
      'VIBER button',
      message('VIBER', {
        content: {
          contentType: 'button',
          text: 'Sale',
          caption: 'Open',
          action: 'https://shop.example/sale',
          imageUrl: 'https://shop.example/a.png',
        },
      }),
      OK,
    ],
    [
      'VIBER button without action',
      message('VIBER', { content: { contentType: 'button', text: 'Sale', caption: 'Open' } }),
      refused('Invalid content: missing action'),
    ],
    [
      'VIBER image',
      message('VIBER', { content: { contentType: 'image', imageUrl: 'https://shop.example/a.png' } }),
      OK,
    ],
    [
      'VIBER image not a link',
      message('VIBER', { content: { contentType: 'image', imageUrl: 'a.png' } }),
      refused('Invalid content: imageUrl must be an http(s) link'),
    ],
    [
      'VIBER string',
      message('VIBER', { content: 'Hi' }),
      refused('Invalid content: an object with contentType text, button or image is expected'),
    ],
    ['VIBER empty text', message('VIBER', { content: { contentType: 'text', text: ' ' } }), refused('Blank content')],
  ],
  'tags (spec 2.1)': [
    ['word characters', message('SMS', { tags: ['promo_2026', 'A', 'метка'] }), OK],
    ['empty list', message('SMS', { tags: [] }), OK],
    ['space in tag', message('SMS', { tags: ['ok', 'not ok'] }), refused('Invalid tags: ["ok","not ok"]')],
    ['dash in tag', message('SMS', { tags: ['a-b'] }), refused('Invalid tags: ["a-b"]')],
    ['empty tag', message('SMS', { tags: [''] }), refused('Invalid tags: [""]')],
    ['not an array', message('SMS', { tags: 'promo' }), refused('Invalid tags: "promo"')],
    ['number tag', message('SMS', { tags: [1] }), refused('Invalid tags: [1]')],
    ['20 tags', message('SMS', { tags: Array.from({ length: 20 }, (_, i) => `t${i}`) }), OK],
    [
      '21 tags',
      message('SMS', { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }),
      refused(`Invalid tags: ${JSON.stringify(Array.from({ length: 21 }, (_, i) => `t${i}`))}`),
    ],
    ['tag of 64 characters', message('SMS', { tags: [long(64)] }), OK],
    ['tag of 65 characters', message('SMS', { tags: [long(65)] }), refused(`Invalid tags: ["${long(65)}"]`)],
    ['tag of 100,000 characters', message('SMS', { tags: [long(1e5)] }), refused(`Invalid tags: ["${long(198)}...`)],
  ],
  'ttl (spec 2.2, 8)': [
    ['SMS 60', message('SMS', { ttl: 60 }), OK],
    ['SMS 59', message('SMS', { ttl: 59 }), refused('Invalid TTL 59')],
    ['SMS 86400', message('SMS', { ttl: 86400 }), OK],
    ['SMS 86401', message('SMS', { ttl: 86401 }), refused('Invalid TTL 86401')],
    ['SMS fractional', message('SMS', { ttl: 60.5 }), refused('Invalid TTL 60.5')],
    ['SMS string', message('SMS', { ttl: '60' }), refused('Invalid TTL "60"')],
    ['VOICECODE 30', message('VOICECODE', { ttl: 30 }), OK],
    ['VOICECODE 29', message('VOICECODE', { ttl: 29 }), refused('Invalid TTL 29')],
    ['VOICECODE 86400', message('VOICECODE', { ttl: 86400 }), OK],
    ['VOICECODE 86401', message('VOICECODE', { ttl: 86401 }), refused('Invalid TTL 86401')],
    ['WHATSAPP 60', message('WHATSAPP', { ttl: 60 }), OK],
    ['WHATSAPP 59', message('WHATSAPP', { ttl: 59 }), refused('Invalid TTL 59')],
    ['VK 86400', message('VK', { ttl: 86400 }), OK],
    ['VK 86401', message('VK', { ttl: 86401 }), refused('Invalid TTL 86401')],
    ['VIBER 59', message('VIBER', { ttl: 59 }), refused('Invalid TTL 59')],
  ],
  'hours and days (spec 2.1, 8)': [
    ['hours 0 and 23', message('SMS', { hours: [0, 23] }), OK],
    ['hour 24', message('SMS', { hours: [24] }), refused('Invalid hours: [24]', 4222)],
    ['hour -1', message('SMS', { hours: [-1] }), refused('Invalid hours: [-1]', 4222)],
    ['duplicate hours', message('SMS', { hours: [25, 1, 1] }), refused('Invalid hours: [25,1,1]', 4222)],
    ['duplicate valid hours', message('SMS', { hours: [1, 1] }), refused('Invalid hours: [1,1]', 4222)],
    ['fractional hour', message('SMS', { hours: [1.5] }), refused('Invalid hours: [1.5]', 4222)],
    ['empty hours', message('SMS', { hours: [] }), refused('Invalid hours: []', 4222)],
    ['hours not an array', message('SMS', { hours: 9 }), refused('Invalid hours: 9', 4222)],
    ['all 24 hours', message('SMS', { hours: Array.from({ length: 24 }, (_, i) => i) }), OK],
    ['days 1 and 7', message('SMS', { days: [1, 7] }), OK],
    ['day 0', message('SMS', { days: [0] }), refused('Invalid days: [0]', 4223)],
    ['day 8', message('SMS', { days: [8] }), refused('Invalid days: [8]', 4223)],
    ['duplicate days', message('SMS', { days: [2, 2] }), refused('Invalid days: [2,2]', 4223)],
    ['day as string', message('SMS', { days: ['1'] }), refused('Invalid days: ["1"]', 4223)],
    ['empty days', message('SMS', { days: [] }), refused('Invalid days: []', 4223)],
  ],
  // Times are wall-clock times in the zone they are written in (DESIGN 4): Moscow with useLocalTime false, else the
  // subscriber's. At 09:00 UTC it is 12:00 in Moscow and 18:00 in Tokyo; the bounds are shown in the same zone.
  'localSendTime and localCompletionTime in Moscow (spec 2.1, 7, 8)': [
    ['send at lower bound', moscow({ localSendTime: '2026-03-10 00:00:00' }), OK],
    [
      'send below lower bound',
      moscow({ localSendTime: '2026-03-09 23:59:59' }),
      refused('Local send time is less than minimal 2026-03-10 00:00:00'),
    ],
    ['send at upper bound', moscow({ localSendTime: '2026-03-17 12:00:00' }), OK],
    [
      'send above upper bound',
      moscow({ localSendTime: '2026-03-17 12:00:01' }),
      refused('Local send time is greater than minimal 2026-03-17 12:00:00'),
    ],
    [
      'send with T separator',
      message('SMS', { localSendTime: '2026-03-10T10:00:00' }),
      refused('Invalid localSendTime: "2026-03-10T10:00:00"'),
    ],
    [
      'send on a day that does not exist',
      message('SMS', { localSendTime: '2026-02-30 10:00:00' }),
      refused('Invalid localSendTime: "2026-02-30 10:00:00"'),
    ],
    [
      'send at hour 24',
      message('SMS', { localSendTime: '2026-03-10 24:00:00' }),
      refused('Invalid localSendTime: "2026-03-10 24:00:00"'),
    ],
    [
      'completion equal to send',
      moscow({ localSendTime: '2026-03-11 10:00:00', localCompletionTime: '2026-03-11 10:00:00' }),
      OK,
    ],
    [
      'completion before send',
      moscow({ localSendTime: '2026-03-11 10:00:00', localCompletionTime: '2026-03-11 09:59:59' }),
      refused('Local completion time is less than minimal 2026-03-11 10:00:00'),
    ],
    ['completion at upper bound', moscow({ localCompletionTime: '2026-05-19 12:00:00' }), OK],
    [
      'completion above upper bound',
      moscow({ localCompletionTime: '2026-05-19 12:00:01' }),
      refused('Local completion time is greater than maximal 2026-05-19 12:00:00'),
    ],
    // DESIGN 12: a completion time already past is refused; the lower bound is max(localSendTime, now).
    ['completion without send, at now', moscow({ localCompletionTime: '2026-03-10 12:00:00' }), OK],
    ['completion without send, before now', moscow({ localCompletionTime: '2026-03-10 11:59:59' }), BEFORE_NOW],
    ['completion two hours ago (after UTC now)', moscow({ localCompletionTime: '2026-03-10 10:00:00' }), BEFORE_NOW],
    ['completion without send, 12 h ago', moscow({ localCompletionTime: '2026-03-10 00:00:00' }), BEFORE_NOW],
    ['completion after past send, before now', moscow(pastSend('2026-03-10 11:00:00')), BEFORE_NOW],
    ['completion after past send, at now', moscow(pastSend('2026-03-10 12:00:00')), OK],
  ],
  "localSendTime and localCompletionTime in the subscriber's zone": [
    [
      'Moscow subscriber, completion two hours ago',
      message('SMS', { localCompletionTime: '2026-03-10 10:00:00' }),
      BEFORE_NOW,
    ],
    ['Tokyo subscriber, completion at now', tokyo({ localCompletionTime: '2026-03-10 18:00:00' }), OK],
    [
      'Tokyo subscriber, completion two hours ago',
      tokyo({ localCompletionTime: '2026-03-10 16:00:00' }),
      refused('Local completion time is less than minimal 2026-03-10 18:00:00'),
    ],
    [
      'Tokyo subscriber, send below lower bound',
      tokyo({ localSendTime: '2026-03-10 05:59:59' }),
      refused('Local send time is less than minimal 2026-03-10 06:00:00'),
    ],
    [
      'Tokyo subscriber, send above upper bound',
      tokyo({ localSendTime: '2026-03-17 18:00:01' }),
      refused('Local send time is greater than minimal 2026-03-17 18:00:00'),
    ],
    [
      'Tokyo subscriber, completion above upper bound',
      tokyo({ localCompletionTime: '2026-05-19 18:00:01' }),
      refused('Local completion time is greater than maximal 2026-05-19 18:00:00'),
    ],
  ],
  'localSendTime and localCompletionTime as written': [
    [
      'completion not a string',
      message('SMS', { localCompletionTime: 20260311 }),
      refused('Invalid localCompletionTime: 20260311'),
    ],
    ['useLocalTime not boolean', message('SMS', { useLocalTime: 'yes' }), refused('Invalid useLocalTime: "yes"')],
  ],
  'shortUrl, callbackUrl, callbackEvents, externalMessageId': [
    ['shortUrl not boolean', message('SMS', { shortUrl: 'true' }), refused('Invalid shortUrl: "true"')],
    [
      'shortUrl without a shortener',
      message('SMS', { shortUrl: true, content: 'see https://example.com' }),
      refused('Url shortener is unavailable', 5030, 503),
    ],
    [
      'callbackUrl with credentials, IP and port',
      message('SMS', { callbackUrl: 'http://user:pass@203.0.113.10:8443/cb?x=1' }),
      OK,
    ],
    [
      'callbackUrl ftp',
      message('SMS', { callbackUrl: 'ftp://example.com/cb' }),
      refused('Invalid callbackUrl: only http and https are allowed: ftp://example.com/cb'),
    ],
    [
      'callbackUrl with space',
      message('SMS', { callbackUrl: 'https://example.com/a b' }),
      refused('Invalid callbackUrl: not a valid URL (RFC 3986): https://example.com/a b'),
    ],
    [
      'callbackUrl relative',
      message('SMS', { callbackUrl: '/cb' }),
      refused('Invalid callbackUrl: not a valid URL (RFC 3986): /cb'),
    ],
    [
      'callbackUrl private address, password masked',
      message('SMS', { callbackUrl: 'http://u:secret@10.1.2.3/cb' }),
      refused('Invalid callbackUrl: private address 10.1.2.3 is not allowed: http://u:***@10.1.2.3/cb'),
    ],
    [
      'callbackUrl loopback',
      message('SMS', { callbackUrl: 'http://127.0.0.1:9000/cb' }),
      refused('Invalid callbackUrl: private address 127.0.0.1 is not allowed: http://127.0.0.1:9000/cb'),
    ],
    [
      'callbackUrl localhost',
      message('SMS', { callbackUrl: 'http://localhost/cb' }),
      refused('Invalid callbackUrl: private address localhost is not allowed: http://localhost/cb'),
    ],
    [
      'callbackUrl IPv6 loopback',
      message('SMS', { callbackUrl: 'http://[::1]:80/cb' }),
      refused('Invalid callbackUrl: private address ::1 is not allowed: http://[::1]:80/cb'),
    ],
    [
      'callbackEvents all',
      message('SMS', {
        callbackUrl: 'https://example.com/cb',
        callbackEvents: ['delivered', 'sent', 'read', 'price', 'click'],
      }),
      OK,
    ],
    [
      'callbackEvents unknown',
      message('SMS', { callbackUrl: 'https://example.com/cb', callbackEvents: ['opened'] }),
      refused('Invalid callbackEvents: ["opened"]'),
    ],
    [
      'callbackEvents duplicate',
      message('SMS', { callbackUrl: 'https://example.com/cb', callbackEvents: ['sent', 'sent'] }),
      refused('Invalid callbackEvents: ["sent","sent"]'),
    ],
    ['callbackEvents empty', message('SMS', { callbackUrl: 'https://a.example/cb', callbackEvents: [] }), NO_EVENTS],
    ['callbackEvents empty without callbackUrl', message('SMS', { callbackEvents: [] }), NO_EVENTS],
    ['callbackUrl of 2048 characters', message('SMS', { callbackUrl: `https://example.com/${long(2048 - 20)}` }), OK],
    ['callbackUrl of 2049 characters', message('SMS', { callbackUrl: `https://example.com/${long(2029)}` }), NO_URL],
    ['callbackUrl of 100,000 characters', message('SMS', { callbackUrl: `https://example.com/${long(1e5)}` }), NO_URL],
    ['externalMessageId 100', message('VOICECODE', { externalMessageId: long(100) }), OK],
    [
      'externalMessageId 101',
      message('VOICECODE', { externalMessageId: long(101) }),
      refused(`Invalid externalMessageId: "${long(101)}"`),
    ],
    [
      'externalMessageId empty',
      message('VOICECODE', { externalMessageId: '' }),
      refused('Invalid externalMessageId: ""'),
    ],
  ],
};

describe.each(ENGINES)('message validation over HTTP (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine);
    account = await t.createAccount({
      channels: { WHATSAPP: true },
      senderNames: [
        ['SMS', SENDER],
        ['WHATSAPP', SENDER],
        ['WHATSAPP', 'WaOnly'],
        ['TELEGRAM', BOT],
      ],
    });
    // Approved, but from tomorrow: not active yet.
    await t.admin('POST', `/admin/v1/accounts/${account.id}/sender-names`, {
      channelType: 'SMS',
      name: 'Later',
      startDate: '2026-03-11T00:00:00Z',
    });
  });
  afterAll(async () => t?.close());

  for (const [rule, cases] of Object.entries(CASES)) {
    describe(rule, () => {
      it.each(cases)('%s', async (_name, body, expected) => {
        const reply = await t.call('POST', '/api/v1/message', { token: account.traffic, body: [body] });
        if (expected === OK) {
          expect(reply.body).toMatchObject({ errors: false, items: [{ code: 201 }] });
          expect(reply.status).toBe(200);
        } else {
          const [status, code, msg] = expected;
          expect(reply.body).toEqual({ error: { code, msg, index: 0 } });
          expect(reply.status).toBe(status);
        }
      });
    });
  }

  it("refuses a dispatch's completion time past in its zone, as a message's (DESIGN 15)", async () => {
    const dispatch = (fields: Record<string, unknown>) =>
      t.call('POST', '/api/v1/dispatch', {
        token: account.traffic,
        body: { dispatchName: 'March', channelType: 'SMS', senderName: SENDER, content: 'Hi', ...fields },
      });
    const past = await dispatch({ useLocalTime: false, localCompletionTime: '2026-03-10 10:00:00' });
    expect(past.body).toEqual({
      error: { code: 4220, msg: 'Local completion time is less than minimal 2026-03-10 12:00:00' },
    });
    const early = await dispatch({ useLocalTime: false, localSendTime: '2026-03-09 23:59:59' });
    expect(early.body.error.msg).toBe('Local send time is less than minimal 2026-03-10 00:00:00');
    expect((await dispatch({ useLocalTime: false, localCompletionTime: '2026-03-10 12:00:00' })).status).toBe(201);
  });

  it('reports the first invalid message of a batch with its index', async () => {
    const reply = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('SMS'), message('VK'), message('SMS', { ttl: 5 }), message('SMS', { hours: [99] })],
    });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({ error: { code: 4220, msg: 'Invalid TTL 5', index: 2 } });
  });

  it('reports a sender-name error before a later message error', async () => {
    const reply = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('VK'), message('SMS', { senderName: 'Nope' }), message('SMS', { ttl: 5 })],
    });
    expect(reply.body).toEqual({ error: { code: 4220, msg: 'No active sender name: (SMS, Nope)', index: 1 } });
  });

  it('stores and shows a FLASHCALL code sent as a number as its string (DESIGN 12)', async () => {
    const body = [message('FLASHCALL', { content: 4821 })];
    const reply = await t.call('POST', '/api/v1/message', { token: account.traffic, body });
    const uuid = reply.body.items[0].messageUuid;
    expect((await t.call('GET', `/api/v1/message/${uuid}`, { token: account.traffic })).body.content).toBe('4821');
    const [row] = await t.testDb.db.query<{ content: unknown }>('SELECT content FROM messages WHERE id = $1', [uuid]);
    expect(row!.content).toBe('4821');
  });

  it('refuses a message that is not an object', async () => {
    const reply = await t.call('POST', '/api/v1/message', { token: account.traffic, body: [message('SMS'), 'text'] });
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual({ error: { code: 4220, msg: 'Message must be a JSON object', index: 1 } });
  });

  it.each<[Channel]>([['SMS'], ['FLASHCALL'], ['VOICECODE'], ['WHATSAPP'], ['VIBER'], ['VK'], ['TELEGRAM']])(
    'accepts a minimal valid %s message',
    async (channel) => {
      const reply = await t.call('POST', '/api/v1/message', { token: account.traffic, body: [message(channel)] });
      expect(reply.status).toBe(200);
      expect(reply.body.items[0].messageUuid).toMatch(/^[0-9a-f-]{36}$/);
    },
  );
});
