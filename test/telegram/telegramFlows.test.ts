import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClock } from '../helpers/clock.js';
import { ENGINES } from '../helpers/engines.js';
import { untilWritten } from '../helpers/signals.js';
import { waitFor } from '../helpers/waitFor.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { SMS as SMS_STEP, TELEGRAM as TELEGRAM_STEP, verifyHarness } from '../helpers/verify.js';
import { messageRows } from '../helpers/messageRows.js';

const BOT = 'shop_mailing_bot';

/**
 * A dispatch and a verifier workflow over TELEGRAM through the connectors and the Telegram simulator (DESIGN 18):
 * texts reach the Bot API, a verifier's code goes to the Gateway and is confirmed.
 */
describe.each(ENGINES)('TELEGRAM dispatches and verifier workflows (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      delivery: { delayMs: 10 },
      clock: new TestClock('2026-03-10T09:00:00Z', { flowing: true }),
    });
    account = await t.createAccount({ senderNames: [['TELEGRAM', BOT]], balance: 100 });
  });
  afterAll(async () => t?.close());

  const statuses = (ids: readonly string[]) =>
    t.testDb.db.query<{ destination: string; status: string; error_code: number | null }>(
      `SELECT destination, status, error_code FROM ${messageRows()} WHERE id = ANY($1::uuid[]) ORDER BY destination`,
      [ids],
    );

  it('sends a dispatch of TELEGRAM texts, each substituted, through the Bot API', async () => {
    const call = (path: string, body?: unknown) =>
      t.call('POST', `/api/v1/dispatch${path}`, { token: account.traffic, ...(body ? { body } : {}) });
    const made = await call('', {
      dispatchName: 'Spring sale',
      channelType: 'TELEGRAM',
      senderName: BOT,
      content: 'Hello {name}, spring sale today',
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const id = made.body.dispatchId;
    const added = await call(`/${id}/messages`, [
      { destination: '79165200001', substitutions: { name: 'Ann' } },
      { destination: '79165200002', substitutions: { name: 'Bob' } },
      { destination: '79165200007', substitutions: { name: 'Eve' } },
    ]);
    const ids = added.body.map((i: { messageUuid: string }) => i.messageUuid);
    expect((await call(`/${id}/start`)).status).toBe(200);
    const done = await untilWritten(t.herald, async () => {
      const rows = await statuses(ids);
      return rows.every((r) => r.status !== 'sending') && rows;
    });
    expect(done.map((r) => [r.destination, r.status, r.error_code])).toEqual([
      ['79165200001', 'delivered', null],
      ['79165200002', 'delivered', null],
      ['79165200007', 'undelivered', 7601],
    ]);
    const texts = t.simulators!.telegram.bot.sent.filter((s) => s.botUsername === BOT).map((s) => s.text);
    expect(texts).toEqual(expect.arrayContaining(['Hello Ann, spring sale today', 'Hello Bob, spring sale today']));
  });

  it("sends a verifier's TELEGRAM step as a Gateway code, which the subscriber's entry confirms", async () => {
    const { client, sent, codeOf, check } = verifyHarness(() => t);
    const c = await client(
      { codeLength: 6, workflow: [TELEGRAM_STEP, SMS_STEP] },
      {
        senderNames: [
          ['SMS', 'Shop'],
          ['TELEGRAM', TELEGRAM_STEP.senderName],
        ],
      },
    );
    const uuid = await sent(c, '79165200010');
    const gateway = t.simulators!.telegram.gateway;
    // The Gateway's payload is the message of the workflow's first step.
    const [step] = await t.testDb.db.query<{ id: string }>(
      'SELECT id FROM messages WHERE cascade_id = $1 AND cascade_step = 1',
      [uuid],
    );
    // The simulator notes a report once Herald has answered it (after recording it): polled, as no signal follows.
    const report = await waitFor(() =>
      gateway.reports
        .map((r) => JSON.parse(r.body))
        .find((r) => r.payload === step!.id && r.delivery_status?.status === 'read'),
    );
    const code = await codeOf(uuid);
    expect(gateway.request(report.request_id)).toMatchObject({ code, phoneNumber: '+79165200010', payload: step!.id });
    expect(await check(c, uuid, code)).toBe('CONFIRMED');
  });
});
