import { describe, expect, it } from 'vitest';
import { readableError } from '../../web/admin/lastError.js';

/** The Connectors page's last error: readable words rather than clipped raw JSON. */
describe('readableError', () => {
  it('reads a provider answer in JSON as its fields, keeping the raw text apart', () => {
    const raw = 'sms-x: 400 {"error":{"code":17,"message":"Bad sender","details":[]}}';
    expect(readableError(raw)).toEqual({ summary: 'sms-x: 400: code 17; message Bad sender', whole: raw });
  });

  it('leaves plain words as they are, and cuts a long text with the whole of it apart', () => {
    expect(readableError('connect ECONNREFUSED 127.0.0.1:2775')).toEqual({
      summary: 'connect ECONNREFUSED 127.0.0.1:2775',
      whole: undefined,
    });
    const long = `timeout ${'x'.repeat(300)}`;
    const read = readableError(long);
    expect(read.summary).toHaveLength(160);
    expect(read.summary.endsWith('…')).toBe(true);
    expect(read.whole).toBe(long);
  });

  it('takes text with a brace that is not JSON as text', () => {
    expect(readableError('bad {thing')).toEqual({ summary: 'bad {thing', whole: undefined });
  });
});
