import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/http.js';
import { UNIBELL_PATH, UnibellSimulator } from '../../helpers/providers/unibellSimulator.js';

const KEY = 'd8ac9959r12b43545unibell';

describe("the Unibell simulator speaks Unibell's documented FlashCall API", () => {
  const sim = new UnibellSimulator(KEY);
  beforeAll(() => sim.start());
  afterAll(() => sim.stop());

  const flash = (body: unknown, auth: { header?: string; query?: string } = { header: `AccessKey ${KEY}` }) =>
    call(sim.url, 'POST', UNIBELL_PATH + (auth.query ? `?X-Authorization=${encodeURIComponent(auth.query)}` : ''), {
      body,
      headers: auth.header ? { 'x-authorization': auth.header } : {},
    });

  it('accepts a documented request, keyed by header or query: a requestId, and a from ending in the code', async () => {
    const byHeader = await flash({ number: '79161600010', code: 4821, timeout: 60000 });
    expect(byHeader.status).toBe(200);
    expect(byHeader.body).toEqual({ requestId: expect.any(Number), from: expect.stringMatching(/^\d{7}4821$/) });
    const byQuery = await flash({ number: '79161600011', code: 1000, timeout: 60000 }, { query: `AccessKey ${KEY}` });
    expect(byQuery.status).toBe(200);
    expect(byQuery.body.requestId).not.toBe(byHeader.body.requestId);
    expect(sim.requestsTo('79161600011')[0]).toMatchObject({ authorization: `AccessKey ${KEY}`, status: 200 });
  });

  it('refuses a missing or another key with 1 (401)', async () => {
    const body = { number: '79161600010', code: 4821, timeout: 60000 };
    for (const auth of [{}, { header: 'AccessKey other' }, { header: `Bearer ${KEY}` }]) {
      const reply = await flash(body, auth);
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ errorCode: 1, errorReason: 'Authentication required' });
    }
  });

  it('checks each field as documented: number 11, code and timeout 10', async () => {
    const cases: [unknown, number][] = [
      [{ number: '+79161600010', code: 4821, timeout: 60000 }, 11],
      [{ number: '7916160001О', code: 4821, timeout: 60000 }, 11], // a Cyrillic О
      [{ number: '8916', code: 4821, timeout: 60000 }, 11],
      [{ number: 79161600010, code: 4821, timeout: 60000 }, 11],
      [{ code: 4821, timeout: 60000 }, 11],
      [{ number: '79161600010', code: '4821', timeout: 60000 }, 10],
      [{ number: '79161600010', code: 123, timeout: 60000 }, 10], // "0123" has no 4-digit number form
      [{ number: '79161600010', code: 48210, timeout: 60000 }, 10],
      [{ number: '79161600010', code: 4821 }, 10],
      [{ number: '79161600010', code: 4821, timeout: 1.5 }, 10],
      [[], 10],
    ];
    for (const [body, errorCode] of cases) {
      const reply = await flash(body);
      expect({ body, status: reply.status, errorCode: reply.body.errorCode }).toEqual({ body, status: 400, errorCode });
    }
    const notJson = await call(sim.url, 'POST', UNIBELL_PATH, {
      rawBody: 'number=79161600010',
      headers: { 'x-authorization': `AccessKey ${KEY}` },
    });
    expect(notJson).toMatchObject({ status: 400, body: { errorCode: 10, errorReason: 'Invalid request' } });
  });

  it('refuses a destination ending in 8 as an invalid number, and gives the refusals it is told to', async () => {
    const body = { number: '79161600018', code: 4821, timeout: 60000 };
    expect(await flash(body)).toMatchObject({ status: 400, body: { errorCode: 11, errorReason: 'Invalid number' } });
    sim.refuseNext('tooManyRequests');
    sim.refuseNext('insufficientFunds');
    const ok = { ...body, number: '79161600010' };
    expect(await flash(ok)).toMatchObject({ status: 429, body: { errorCode: 4, errorReason: 'Too many requests' } });
    expect(await flash(ok)).toMatchObject({ status: 403, body: { errorCode: 6, errorReason: 'Insufficient funds' } });
    expect((await flash(ok)).status).toBe(200);
  });
});
