import { describe, expect, it } from 'vitest';
import { gsmDecode, gsmEncode, gsmSeptetCount } from '../../src/sms/gsm7.js';
import { smsEncoding, smsPartCount, smsSplit } from '../../src/sms/parts.js';

describe('GSM 03.38 and UCS-2 part counting', () => {
  it.each([
    ['empty-ish single char', 'a', 'gsm7', 1],
    ['160 GSM characters', 'a'.repeat(160), 'gsm7', 1],
    ['161 GSM characters', 'a'.repeat(161), 'gsm7', 2],
    ['306 GSM characters (2 x 153)', 'a'.repeat(306), 'gsm7', 2],
    ['307 GSM characters', 'a'.repeat(307), 'gsm7', 3],
    ['80 euro signs are 160 septets', '€'.repeat(80), 'gsm7', 1],
    ['81 euro signs are 162 septets', '€'.repeat(81), 'gsm7', 2],
    ['GSM specials @£¥èÄÖÑÜ§¿', '@£¥èÄÖÑÜ§¿'.repeat(16), 'gsm7', 1],
    ['70 Cyrillic characters', 'я'.repeat(70), 'ucs2', 1],
    ['71 Cyrillic characters', 'я'.repeat(71), 'ucs2', 2],
    ['134 Cyrillic characters (2 x 67)', 'я'.repeat(134), 'ucs2', 2],
    ['135 Cyrillic characters', 'я'.repeat(135), 'ucs2', 3],
    ['one Cyrillic letter makes the text UCS-2', `${'a'.repeat(69)}я`, 'ucs2', 1],
    ['35 emoji are 70 code units', '😀'.repeat(35), 'ucs2', 1],
    ['ç (lower case) is not GSM', 'ç', 'ucs2', 1],
  ] as const)('%s', (_name, text, encoding, parts) => {
    expect(smsEncoding(text)).toBe(encoding);
    expect(smsPartCount(text)).toBe(parts);
    expect(smsSplit(text).parts).toHaveLength(parts);
    expect(smsSplit(text).parts.join('')).toBe(text);
  });

  it('never splits an escape pair: 152 septets then a euro sign moves the euro to the next part', () => {
    const text = `${'a'.repeat(152)}€${'b'.repeat(10)}`;
    expect(gsmSeptetCount(text)).toBe(164);
    const { parts } = smsSplit(text);
    expect(parts[0]).toBe('a'.repeat(152));
    expect(parts[1]).toBe(`€${'b'.repeat(10)}`);
    expect(smsPartCount(text)).toBe(2);
  });

  it('never splits a surrogate pair across UCS-2 parts', () => {
    const text = `${'я'.repeat(66)}😀${'я'.repeat(10)}`;
    const { parts } = smsSplit(text);
    expect(parts[0]).toBe('я'.repeat(66));
    expect(parts[1]!.startsWith('😀')).toBe(true);
    expect(smsPartCount(text)).toBe(2);
  });

  it('counts a text whose extension characters push it into one more part', () => {
    // 153 * 2 = 306 septets would fit in 2 parts, but 152 + escape pair cannot: 3 parts.
    const text = `${'a'.repeat(152)}€${'a'.repeat(151)}€`;
    expect(gsmSeptetCount(text)).toBe(307);
    expect(smsSplit(text).parts.map((p) => gsmSeptetCount(p))).toEqual([152, 153, 2]);
    expect(smsPartCount(text)).toBe(3);
  });

  it('encodes and decodes GSM septets with escape sequences', () => {
    const text = 'Hi {you} €5 @home [ok] ~|^\\';
    const bytes = gsmEncode(text);
    expect(bytes.length).toBe(gsmSeptetCount(text));
    expect(gsmDecode(bytes)).toBe(text);
    expect(gsmEncode('@')[0]).toBe(0);
    expect([...gsmEncode('€')]).toEqual([0x1b, 0x65]);
  });
});
