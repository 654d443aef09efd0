import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HttpConnectorConfig } from '../../src/connectors/connectorConfig.js';
import { messageApplyReceipts } from '../../src/messages/outcomes.js';
import { ENGINES } from '../helpers/engines.js';
import { untilWritten } from '../helpers/signals.js';
import { startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { message, SENDER } from './messageFixtures.js';
import { messageRows } from '../helpers/messageRows.js';

describe.each(ENGINES)('receipts: webhooks, late, duplicate and orphan receipts (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;
  const row = async (id: string) =>
    (
      await t.testDb.db.query<{
        status: string;
        error_code: number | null;
        history: { status: string; ignored?: boolean }[];
      }>(`SELECT status, error_code, history FROM ${messageRows()} WHERE id = $1`, [id])
    )[0]!;
  const sendOne = async (body: Record<string, unknown>): Promise<string> => (await t.send(account.traffic, [body]))[0]!;

  beforeAll(async () => {
    t = await startTestHerald(engine, { delivery: { delayMs: 20 } });
    account = await t.createAccount({
      channels: { WHATSAPP: true },
      senderNames: [
        ['SMS', SENDER],
        ['WHATSAPP', SENDER],
      ],
    });
  });
  afterAll(async () => t?.close());

  it('refuses a webhook with a wrong signature and records nothing', async () => {
    const id = await sendOne(message('VIBER', { destination: '79161231119' }));
    await untilWritten(t.herald, async () => (await row(id)).status === 'sent');
    const [submission] = await t.testDb.db.query<{ carrier_id: string }>(
      'SELECT carrier_id FROM submissions WHERE message_id = $1',
      [id],
    );
    const body = JSON.stringify({
      statuses: [{ id: submission!.carrier_id, status: 'delivered', timestamp: new Date().toISOString() }],
    });
    const forged = await t.call('POST', '/webhooks/http/sim-viber', {
      rawBody: body,
      headers: {
        'content-type': 'application/json',
        'x-signature': `sha256=${createHmac('sha256', 'wrong').update(body).digest('hex')}`,
      },
    });
    expect(forged.status).toBe(401);
    expect((await row(id)).status).toBe('sent');
    const unsigned = await t.call('POST', '/webhooks/http/sim-viber', {
      rawBody: body,
      headers: { 'content-type': 'application/json' },
    });
    expect(unsigned.status).toBe(401);
    const unknown = await t.call('POST', '/webhooks/nobody', {
      rawBody: body,
      headers: { 'content-type': 'application/json' },
    });
    expect(unknown.status).toBe(404);
    // Signed bodies the database could not store, or too deep to walk, are refused before anything reads them.
    const secret = (t.simulators!.configFile.connectors.find((c) => c.id === 'sim-viber') as HttpConnectorConfig)
      .secrets!.WEBHOOK!;
    for (const raw of [
      JSON.stringify({ statuses: [{ id: 'x\u0000', status: 'delivered' }] }),
      `${'['.repeat(40)}${']'.repeat(40)}`,
    ]) {
      const signature = `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;
      const refused = await t.call('POST', '/webhooks/http/sim-viber', {
        rawBody: raw,
        headers: { 'content-type': 'application/json', 'x-signature': signature },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe(4000);
    }
  });

  it('ignores a late receipt after the lifetime ended, and notes it in the history', async () => {
    const id = await sendOne(message('SMS', { destination: '79161231129', ttl: 60 }));
    await untilWritten(t.herald, async () => (await row(id)).status === 'sent');
    t.clock.advance(61_000);
    try {
      await t.herald.jobs!.run('expire-lifetimes');
    } finally {
      t.clock.advance(-61_000);
    }
    expect(await row(id)).toMatchObject({ status: 'undelivered', error_code: 9005 });
    const [submission] = await t.testDb.db.query<{ carrier_id: string }>(
      'SELECT carrier_id FROM submissions WHERE message_id = $1',
      [id],
    );
    await t.herald.writer.receipts([
      {
        connectorId: 'sim-smsc',
        carrierId: submission!.carrier_id,
        state: 'delivered',
        at: t.clock.now(),
        errorCode: null,
      },
    ]);
    const after = await row(id);
    expect(after.status).toBe('undelivered');
    expect(after.history.at(-1)).toMatchObject({ status: 'delivered', ignored: true });
  });

  it('ignores a duplicate receipt', async () => {
    const id = await sendOne(message('SMS', { destination: '79161231130' }));
    await untilWritten(t.herald, async () => (await row(id)).status === 'delivered');
    const [submission] = await t.testDb.db.query<{ carrier_id: string }>(
      'SELECT carrier_id FROM submissions WHERE message_id = $1',
      [id],
    );
    await t.testDb.db.transaction((tx) =>
      messageApplyReceipts(tx, [
        {
          connectorId: 'sim-smsc',
          carrierId: submission!.carrier_id,
          state: 'undelivered',
          at: t.clock.now(),
          errorCode: 5,
        },
      ]),
    );
    const after = await row(id);
    expect(after.status).toBe('delivered');
    expect(after.history.filter((h) => h.status === 'delivered' && !h.ignored)).toHaveLength(1);
    expect(after.history.at(-1)).toMatchObject({ status: 'undelivered', ignored: true });
  });

  it('keeps a receipt that overtakes its submission record, then applies it', async () => {
    const id = await sendOne(message('SMS', { destination: '79161231139', hours: [3] }));
    // A receipt for a submission another process has not recorded yet.
    const outcome = await t.testDb.db.transaction((tx) =>
      messageApplyReceipts(tx, [
        { connectorId: 'other-smsc', carrierId: 'c-1', state: 'delivered', at: t.clock.now(), errorCode: null },
      ]),
    );
    expect(outcome).toMatchObject({ orphaned: 1, applied: 0 });
    await t.testDb.db.query(
      `INSERT INTO submissions (connector_id, carrier_id, account_id, message_id, part, parts, created_at)
       VALUES ('other-smsc', 'c-1', $1, $2, 1, 1, now())`,
      [account.id, id],
    );
    await t.herald.jobs!.run('match-orphan-receipts');
    expect((await row(id)).status).toBe('delivered');
    const left = await t.testDb.db.query('SELECT 1 FROM orphan_receipts');
    expect(left).toHaveLength(0);
  });
});
