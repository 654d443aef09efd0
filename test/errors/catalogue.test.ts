import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERRORS, herald } from '../../src/errors/catalogue.js';
import { renderErrorsDoc } from '../../src/errors/errorsDoc.js';

describe('error catalogue (DESIGN 3)', () => {
  it('gives every code as HTTP status x 10 + n', () => {
    for (const [name, error] of Object.entries(ERRORS)) {
      // The real service's item code of dispatches.
      if (name === 'dispatchItemInvalid') continue;
      expect(Math.floor(error.code / 10), name).toBe(error.status);
    }
  });

  it('keeps the spec section 7 messages verbatim', () => {
    const spec: [number, number, string][] = [
      [401, 4010, 'Not Authenticated'],
      [401, 4012, 'Bad credentials'],
      [403, 4030, 'Access Denied'],
      [422, 4220, 'Max count of messages is 1000'],
      [422, 4220, 'Local send time is less than minimal {minLocalSendTime}'],
      [422, 4220, 'Local send time is greater than minimal {maxLocalSendTime}'],
      [422, 4220, 'Local completion time is less than minimal {minLocalCompletionTime}'],
      [422, 4220, 'Local completion time is greater than maximal {maxLocalCompletionTime}'],
      [422, 4220, 'No active sender name: ({channelType}, {senderName})'],
      [422, 4220, 'Invalid msisdn'],
      [422, 4220, 'Blank content'],
      [422, 4220, 'Invalid content'],
      [422, 4220, 'Invalid tags: {tags}'],
      [422, 4220, 'Invalid TTL {ttl}'],
      [422, 4222, 'Invalid hours: {hours}'],
      [422, 4223, 'Invalid days: {days}'],
      [503, 5030, 'Url shortener is unavailable'],
    ];
    const catalogue = Object.values(ERRORS).map((e) => [e.status, e.code, e.msg]);
    for (const row of spec) expect(catalogue).toContainEqual(row);
  });

  it('fills placeholders', () => {
    expect(herald('noActiveSenderName', { channelType: 'SMS', senderName: 'Foo' }).toBody()).toEqual({
      error: { code: 4220, msg: 'No active sender name: (SMS, Foo)' },
    });
    expect(herald('invalidTtl', { ttl: 10 }).with({ index: 3 }).toBody()).toEqual({
      error: { code: 4220, msg: 'Invalid TTL 10', index: 3 },
    });
  });

  it('matches docs/errors.md', () => {
    expect(readFileSync('docs/errors.md', 'utf8')).toBe(renderErrorsDoc());
  });
});
