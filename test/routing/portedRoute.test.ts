import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConnectorConfig } from '../../src/connectors/index.js';
import { SIM_CONNECTOR_IDS } from '../../src/simulators/embeddedSimulators.js';
import { ENGINES } from '../helpers/engines.js';
import { untilWritten } from '../helpers/signals.js';
import { ADMIN_TOKEN, startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { waitFor } from '../helpers/waitFor.js';
import { messageRows } from '../helpers/messageRows.js';

/** A second connector to the simulated SMSC: the carrier the operator buys МегаФон's traffic from. */
const MEGAFON = 'sim-smsc-mf';
/** In the plan 916 123xxxx is МТС; the base below ports the first to МегаФон. */
const PORTED = '79161230006';
const NOT_PORTED = '79161230016';

// DESIGN 21: a ported number's operator comes from the portability base; a route by operator takes it after the swap.
describe.each(ENGINES)('a ported number routed by its new operator (%s)', (engine) => {
  let t: TestHerald;
  let account: TestAccount;

  const connectorOf = async (destination: string): Promise<{ connector_id: string; brand: string }> => {
    const [id] = await t.send(account.traffic, [
      { channelType: 'SMS', senderName: 'Shop', destination, content: 'Hi' },
    ]);
    const row = async () =>
      (
        await t.testDb.db.query<{ status: string; connector_id: string; brand: string }>(
          `SELECT status, connector_id, brand FROM ${messageRows()} WHERE id = $1`,
          [id],
        )
      )[0]!;
    await untilWritten(t.herald, async () => (await row()).status === 'delivered');
    const { connector_id, brand } = await row();
    return { connector_id, brand };
  };

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      delivery: {
        delayMs: 5,
        configure: (file) => {
          const smsc = file.connectors.find((c) => c.id === SIM_CONNECTOR_IDS.SMS)!;
          return { ...file, connectors: [...file.connectors, { ...smsc, id: MEGAFON } as ConnectorConfig] };
        },
      },
    });
    account = await t.createAccount({ senderNames: [['SMS', 'Shop']] });
    const route = await t.admin('POST', '/admin/v1/routes', {
      priority: 1,
      match: { channelType: 'SMS', operators: ['МегаФон'] },
      connectors: [{ connectorId: MEGAFON }],
    });
    expect(route.status).toBe(201);
  });
  afterAll(async () => t?.close());

  it("goes by the plan operator's route before the import and by the new operator's after the swap", async () => {
    expect(await connectorOf(PORTED)).toEqual({ connector_id: SIM_CONNECTOR_IDS.SMS, brand: 'МТС' });
    const csv = [
      'Number,OwnerId,MNC,Route,RegionCode,PortDate,RowCount',
      `${PORTED.slice(1)},mMEGAFON,02,D7702,77,2024-03-01T12:00:17+03:00,1`,
      '',
    ].join('\r\n');
    const reply = await t.call('POST', '/admin/v1/mnp/import', {
      auth: `Bearer ${ADMIN_TOKEN}`,
      rawBody: csv,
      headers: { 'content-type': 'text/csv' },
    });
    expect(reply.status).toBe(202);
    await waitFor(
      async () => (await t.admin('GET', `/admin/v1/mnp/imports/${reply.body.importId}`)).body.state === 'done',
      { timeoutMs: 30_000 },
    );
    expect(await connectorOf(PORTED)).toEqual({ connector_id: MEGAFON, brand: 'МЕГАФОН' });
    expect(await connectorOf(NOT_PORTED)).toEqual({ connector_id: SIM_CONNECTOR_IDS.SMS, brand: 'МТС' });
    const resolved = await t.admin('GET', `/admin/v1/routes/resolve?destination=${PORTED}&channelType=SMS`);
    expect(resolved.body).toMatchObject({ operator: 'МЕГАФОН', connectorId: MEGAFON });
  });
});
