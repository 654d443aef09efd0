import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/config/index.js';
import { DELIVERY_ERRORS } from '../../src/messages/statuses.js';
import { SIM_UNDELIVERED_ERROR } from '../../src/simulators/outcomes.js';
import { ENGINES } from '../helpers/engines.js';
import { untilWritten } from '../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { SMS as SMS_STEP, verifyHarness } from '../helpers/verify.js';
import { waitFor } from '../helpers/waitFor.js';
import { message, SENDER } from '../messages/messageFixtures.js';
import { messageRows } from '../helpers/messageRows.js';

const VK = { channelType: 'VK', senderName: 'club1', content: 'Your code 1234' };
const SMS = { channelType: 'SMS', senderName: SENDER, content: 'Your code 1234' };
const VIBER = { channelType: 'VIBER', senderName: 'Shop', content: { contentType: 'text', text: 'Your code 1234' } };

interface Row {
  status: string;
  error_code: number | null;
}

/**
 * The stop lists where a message goes out, through the real pipeline (the SMSC simulator over SMPP, the provider
 * simulator for VK and VIBER; outcomes by the destination's last digit, 7 undelivered): a later step of a cascade,
 * and the check again when a message's turn to be sent comes. The clock stands still unless a test moves it.
 */
describe.each(ENGINES)('stop lists where messages go out (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    // The SMSC's receipts with the simulators' undelivered code mean its blocklist; the VK provider's do not.
    const blocklist = (file: ConfigFile): ConfigFile => ({
      ...file,
      connectors: file.connectors.map((c) =>
        c.type === 'smpp' ? { ...c, blocklistErrorCodes: [SIM_UNDELIVERED_ERROR] } : c,
      ),
    });
    t = await startTestHerald(engine, { delivery: { delayMs: 5, configure: blocklist } });
    for (const tariff of [
      { channelType: 'SMS', prefix: '7916', price: 2, currency: 'RUB' },
      { channelType: 'VK', prefix: '7916', price: 1, currency: 'RUB' },
      { channelType: 'VIBER', prefix: '7916', price: 1, currency: 'RUB' },
    ])
      expect((await t.admin('POST', '/admin/v1/tariffs', tariff)).status).toBe(201);
    account = await t.createAccount({
      channels: { VK: true, VIBER: true },
      senderNames: [['SMS', SENDER]],
      balance: 100,
    });
  });
  afterAll(async () => t?.close());

  const addEntry = async (body: Record<string, unknown>) =>
    expect((await t.call('POST', '/api/v1/stop-list', { token: account.system, body })).status).toBe(201);
  const row = async (id: string): Promise<Row> =>
    (await t.testDb.db.query<Row>(`SELECT status, error_code FROM ${messageRows()} WHERE id = $1`, [id]))[0]!;
  const balance = async (): Promise<number> =>
    (await t.call('GET', '/api/v1/balance', { token: account.traffic })).body.RUB;
  const steps = (root: string) =>
    t.testDb.db.query<{ cascade_step: number; channel_type: string; status: string; error_code: number | null }>(
      `SELECT cascade_step, channel_type, status, error_code FROM ${messageRows()}
         WHERE cascade_id = $1 ORDER BY cascade_step`,
      [root],
    );

  it('makes a later listed step of a cascade unsent 453, free, and moves on to the next step', async () => {
    // VK, undelivered (last digit 7) -> SMS, listed for SMS only -> VIBER.
    await addEntry({ number: '79161200017', channelType: 'SMS' });
    const before = await balance();
    const reply = await t.call('POST', '/api/v1/message/cascade', {
      token: account.traffic,
      body: [
        {
          destination: '79161200017',
          cascade: [{ ...VK, condition: 'not_delivered' }, { ...SMS, condition: 'not_delivered' }, VIBER],
        },
      ],
    });
    const root = reply.body.items[0].messageUuid as string;
    await untilWritten(
      t.herald,
      async () => (await steps(root)).length === 3 && (await steps(root))[2]!.status === 'undelivered',
    );
    expect((await steps(root)).map((s) => [s.cascade_step, s.channel_type, s.status, s.error_code])).toEqual([
      [1, 'VK', 'undelivered', expect.any(Number)],
      [2, 'SMS', 'unsent', DELIVERY_ERRORS.stopListed],
      [3, 'VIBER', 'undelivered', expect.any(Number)],
    ]);
    // VK and VIBER charged (1 each; undelivered keeps its price), the listed SMS step nothing.
    expect(await balance()).toBe(before - 2);
    const view = (await t.call('GET', `/api/v1/message/cascade/${root}`, { token: account.traffic })).body;
    expect(view).toMatchObject({ state: 'done', currentStep: 3 });
  });

  it('ends a cascade at a listed later step when its condition does not move on, as any unsent last step', async () => {
    await addEntry({ number: '79161200027', channelType: 'VIBER' });
    const reply = await t.call('POST', '/api/v1/message/cascade', {
      token: account.traffic,
      body: [{ destination: '79161200027', cascade: [{ ...VK, condition: 'not_delivered' }, VIBER] }],
    });
    const root = reply.body.items[0].messageUuid as string;
    await untilWritten(t.herald, async () => (await steps(root)).length === 2);
    expect((await steps(root)).map((s) => [s.channel_type, s.status, s.error_code])).toEqual([
      ['VK', 'undelivered', expect.any(Number)],
      ['VIBER', 'unsent', DELIVERY_ERRORS.stopListed],
    ]);
    expect((await t.call('GET', `/api/v1/message/cascade/${root}`, { token: account.traffic })).body.state).toBe(
      'done',
    );
  });

  it('makes a message listed while it waits for its send window unsent 453 when its turn comes, refunded', async () => {
    t.clock.set('2026-03-10T09:00:00Z'); // 12:00 in Moscow; hours [9]: planned for 09:00 Moscow tomorrow.
    const before = await balance();
    const [listed, control] = await t.send(account.traffic, [
      message('SMS', { destination: '79161200031', hours: [9] }),
      message('SMS', { destination: '79161200032', hours: [9] }),
    ]);
    expect(await balance()).toBe(before - 4);
    expect(await row(listed!)).toEqual({ status: 'sending', error_code: null });
    await addEntry({ number: '79161200031' });

    t.clock.set('2026-03-11T06:00:00Z');
    await untilWritten(
      t.herald,
      async () => (await row(listed!)).status === 'unsent' && (await row(control!)).status === 'delivered',
    );
    expect(await row(listed!)).toEqual({ status: 'unsent', error_code: DELIVERY_ERRORS.stopListed });
    // The positive control, waiting for the same window: sent.
    expect((await row(control!)).status).toBe('delivered');
    expect(t.simulators!.smsc.submissions.map((s) => s.destination)).not.toContain('79161200031');
    expect(await balance()).toBe(before - 2);
    const shown = (await t.call('GET', `/api/v1/message/${listed}`, { token: account.traffic })).body;
    expect(shown).toMatchObject({ status: 'unsent', errorCode: 453 });
    const text = (await t.call('GET', '/metrics')).body as string;
    expect(text).toMatch(/herald_stop_list_refusals_total\{stage="send"\} [1-9]/);
  });

  it("lists a number a carrier's receipt says is blocklisted: the account's list, the channel and sender", async () => {
    const [sms, vk] = await t.send(account.traffic, [
      message('SMS', { destination: '79161200047' }),
      message('VK', { destination: '79161200057' }),
    ]);
    await untilWritten(
      t.herald,
      async () => (await row(sms!)).status === 'undelivered' && (await row(vk!)).status === 'undelivered',
    );
    // The receipt is recorded first, then its number listed.
    const entries = await waitFor(async () => {
      const reply = await t.call('GET', '/api/v1/stop-list?source=carrier', { token: account.system });
      return reply.body.items.length > 0 && reply;
    });
    expect(entries.body.items).toEqual([
      {
        id: expect.any(Number),
        number: '79161200047',
        channelType: 'SMS',
        senderName: SENDER,
        trafficTypes: null,
        source: 'carrier',
        comment: `carrier error ${SIM_UNDELIVERED_ERROR}`,
        createdTime: expect.any(String),
      },
    ]);
    // Its scope: an SMS from the same sender name is refused, a VK message to the number goes.
    const reply = await t.call('POST', '/api/v1/message', {
      token: account.traffic,
      body: [message('SMS', { destination: '79161200047' }), message('VK', { destination: '79161200047' })],
    });
    expect(reply.body.items.map((i: { code: number }) => i.code)).toEqual([4032, 201]);
    // Another account's messages to the number are not concerned.
    const other = await t.createAccount({ senderNames: [['SMS', SENDER]], balance: 10 });
    const theirs = await t.call('POST', '/api/v1/message', {
      token: other.traffic,
      body: [message('SMS', { destination: '79161200047' })],
    });
    expect(theirs.body.items[0].code).toBe(201);
  });

  it('sends a verification code past an opt-out of promotions, not to a number listed for every type', async () => {
    const { client, send } = verifyHarness(() => t);
    const c = await client({ workflow: [SMS_STEP] }, { balance: 10 });
    const list = (body: Record<string, unknown>) => t.call('POST', '/api/v1/stop-list', { token: c.system, body });
    expect((await list({ number: '79161200060', trafficTypes: ['PROMO', 'SERVICE'], source: 'x' })).status).toBe(422);
    expect((await list({ number: '79161200060', trafficTypes: ['PROMO', 'SERVICE'] })).status).toBe(201);
    expect((await list({ number: '79161200070' })).status).toBe(201);
    const optedOut = await send(c, '79161200060');
    expect(optedOut.status).toBe(200);
    const listed = await send(c, '79161200070');
    expect(listed.status).toBe(403);
    expect(listed.body.error).toEqual({ code: 4032, msg: 'Destination is on the stop list' });
  });
});
