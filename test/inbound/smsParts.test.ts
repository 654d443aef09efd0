import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_INBOUND_PARTS_WAIT_SECONDS } from '../../src/config/config.js';
import { receiveSmsInbound } from '../../src/inbound/index.js';
import { MISSING_PART } from '../../src/inbound/smsParts.js';
import { type EmbeddedSimulators, startEmbeddedSimulators } from '../../src/simulators/embeddedSimulators.js';
import { TestClock } from '../helpers/clock.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';
import { Receiver } from '../helpers/receiver.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';

/** About 270 characters: three parts of 100. */
const LONG = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
const partOf = (text: string, n: number): string => text.slice((n - 1) * 100, n * 100);

describe.each(ENGINES)('long inbound SMS: parts kept in the database before they are answered (%s)', (engine) => {
  let testDb: TestDb;
  let simulators: EmbeddedSimulators;
  let receiver: Receiver;
  let t: TestHerald;
  let account: TestAccount;
  const clock = new TestClock('2026-03-10T09:00:00Z', { flowing: true });

  /** A fresh Herald on the test's database and SMSC, bound to it. */
  const startHerald = async (): Promise<TestHerald> => {
    const herald = await startTestHerald(engine, {
      delivery: { delayMs: 10 },
      clock,
      on: { testDb, simulators },
      env: { HERALD_CALLBACK_ALLOW_PRIVATE: 'true' },
    });
    await waitFor(() => herald.herald.connectors.find((c) => c.channel === 'SMS')!.available());
    return herald;
  };
  const inboundTexts = async (): Promise<string[]> =>
    (await t.call('GET', '/api/v1/message?direction=inbound&per_page=1000', { token: account.traffic })).body.items.map(
      (m: { content: string }) => m.content,
    );
  const calledBack = (text: string): number =>
    receiver.received
      .flatMap((r) => (Array.isArray(r.body) ? r.body : [r.body]))
      .filter((e: { item?: { content: string } }) => e.item?.content === text).length;
  const partRows = (sender: string) =>
    testDb.db.query<{ part_number: number; completed: boolean }>(
      `SELECT part_number, completed_at IS NOT NULL AS completed FROM inbound_sms_parts WHERE sender = $1
       ORDER BY part_number`,
      [sender],
    );

  beforeAll(async () => {
    receiver = await new Receiver().start();
    testDb = await openTestDb(engine);
    simulators = await startEmbeddedSimulators({ delayMs: 10, clock });
    t = await startHerald();
    account = await t.createAccount({});
    await t.admin('PATCH', `/admin/v1/accounts/${account.id}`, { inbound: true });
    await t.admin('POST', `/admin/v1/accounts/${account.id}/inbound-numbers`, { channelType: 'SMS', number: '4242' });
    const center = await t.call('POST', '/api/v1/traffic-centers', { token: account.system, body: { name: 'SMS' } });
    const rule = await t.call('POST', '/api/v1/inbound-rules', {
      token: account.system,
      body: { channelType: 'SMS', trafficCenterId: center.body.id, callbackUrl: receiver.url, senderNames: ['4242'] },
    });
    expect(rule.status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
    await simulators?.stop();
    await testDb?.drop();
    await receiver?.stop();
  });

  it('stores and calls back the whole message when Herald restarted between its parts', async () => {
    const from = '79161240001';
    const [first] = await simulators.smsc.sendMo({ from, to: '4242', text: LONG, partSize: 100, order: [1] });
    // Answered: the SMSC will never send part 1 again. It is in the database by then.
    expect(first?.command_status).toBe(0);
    expect(await partRows(from)).toEqual([{ part_number: 1, completed: false }]);

    await t.close();
    t = await startHerald();
    const rest = await simulators.smsc.sendMo({ from, to: '4242', text: LONG, partSize: 100, order: [2, 3] });
    expect(rest.map((a) => a?.command_status)).toEqual([0, 0]);
    await waitFor(async () => (await inboundTexts()).includes(LONG));
    await waitFor(() => calledBack(LONG) === 1);
    expect((await inboundTexts()).filter((text) => text === LONG)).toHaveLength(1);
    expect(await partRows(from)).toEqual([1, 2, 3].map((n) => ({ part_number: n, completed: true })));
  });

  it('stores a part delivered twice once, before and after its message is complete', async () => {
    const from = '79161240002';
    const text = LONG.toUpperCase();
    const answers = await simulators.smsc.sendMo({ from, to: '4242', text, partSize: 100, order: [1, 1, 3, 2, 3] });
    expect(answers.map((a) => a?.command_status)).toEqual([0, 0, 0, 0, 0]);
    await waitFor(() => calledBack(text) === 1);
    // The SMSC missed our answer to part 2 and sends it again after the message was stored.
    const [again] = await simulators.smsc.sendMo({ from, to: '4242', text, partSize: 100, order: [2] });
    expect(again?.command_status).toBe(0);
    expect((await inboundTexts()).filter((m) => m === text)).toHaveLength(1);
    expect(await partRows(from)).toHaveLength(3);

    // A newer message reusing the reference (8-bit references wrap) is a message of its own.
    const newer = `${LONG} again`;
    await simulators.smsc.sendMo({ from, to: '4242', text: newer, partSize: 100 });
    await waitFor(async () => (await inboundTexts()).includes(newer));
    await waitFor(() => calledBack(newer) === 1);
    expect(calledBack(text)).toBe(1);
  });

  it('stores the message held as it is when a newer one with its reference starts before it is complete', async () => {
    const from = '79161240005';
    // Three parts each, none alike.
    const older = LONG.replaceAll('word', 'old');
    const newer = LONG.replaceAll('word', 'new');
    await simulators.smsc.sendMo({ from, to: '4242', text: older, partSize: 100, order: [2] });
    await simulators.smsc.sendMo({ from, to: '4242', text: newer, partSize: 100, order: [2, 1, 3] });
    const asItIs = `${MISSING_PART}${partOf(older, 2)}${MISSING_PART}`;
    await waitFor(() => calledBack(asItIs) === 1 && calledBack(newer) === 1);
    expect(await partRows(from)).toEqual([1, 2, 3].map((n) => ({ part_number: n, completed: true })));
  });

  it('takes two parts of one message arriving at once as one message', async () => {
    const from = '79161240003';
    const texts = Array.from({ length: 20 }, (_, i) => `${LONG} at once ${i}`);
    const part = (i: number, n: number) => ({
      from,
      to: '4242',
      text: partOf(texts[i]!, n),
      at: clock.now(),
      part: { reference: i, total: 3, sequence: n },
    });
    await Promise.all(texts.map((_, i) => receiveSmsInbound(t.herald.ctx, 'sim-smsc', [part(i, 1)])));
    // Two binds answering at once: neither transaction sees the other's part until it commits.
    await Promise.all(
      texts.flatMap((_, i) => [2, 3].map((n) => receiveSmsInbound(t.herald.ctx, 'sim-smsc', [part(i, n)]))),
    );
    const stored = await inboundTexts();
    for (const text of texts) expect(stored.filter((m) => m === text)).toHaveLength(1);
  });

  it('stores a message as it is when parts never came, and forgets completed ones, after the wait', async () => {
    const from = '79161240004';
    const text = `${LONG} with a gap`;
    await simulators.smsc.sendMo({ from, to: '4242', text, partSize: 100, order: [1, 3] });
    await t.herald.jobs!.run('inbound-sms-parts');
    expect(await partRows(from)).toEqual([1, 3].map((n) => ({ part_number: n, completed: false })));

    clock.advance(DEFAULT_INBOUND_PARTS_WAIT_SECONDS * 1000 + 1000);
    await t.herald.jobs!.run('inbound-sms-parts');
    const asItIs = `${partOf(text, 1)}${MISSING_PART}${partOf(text, 3)}`;
    await waitFor(() => calledBack(asItIs) === 1);
    expect(await inboundTexts()).toContain(asItIs);
    // Kept for as long again, to recognise a part sent again; the earlier tests' parts are gone.
    expect(await partRows(from)).toEqual([1, 3].map((n) => ({ part_number: n, completed: true })));
    expect(await partRows('79161240001')).toEqual([]);
    clock.advance(DEFAULT_INBOUND_PARTS_WAIT_SECONDS * 1000 + 1000);
    await t.herald.jobs!.run('inbound-sms-parts');
    expect(await partRows(from)).toEqual([]);
  });
});
