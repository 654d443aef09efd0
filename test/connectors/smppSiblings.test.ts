import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { SmppConnector } from '../../src/connectors/smpp/smppConnector.js';
import { waitFor } from '../helpers/waitFor.js';
import { acceptedIds, type SmppHarness, sms, smppConfig, startSmpp } from './smppHarness.js';

describe('several connectors to one SMSC account', () => {
  let h: SmppHarness | undefined;
  let sibling: SmppConnector | undefined;
  afterEach(async () => {
    await sibling?.stop();
    await h?.close();
    h = sibling = undefined;
  });

  it('reports a receipt that arrives on a sibling connector under the connector that submitted it', async () => {
    h = await startSmpp({ reconnectMinMs: 60_000, reconnectMaxMs: 60_000 }, { delayMs: 60_000 });
    const { smsc, connector, clock, receipts } = h;
    await waitFor(() => connector.available());
    sibling = new SmppConnector(
      { ...smppConfig(smsc.port), id: 'smsc-sibling' },
      async (batch) => {
        receipts.push(...batch);
      },
      pino({ level: 'silent' }),
      clock,
    );
    await sibling.start();
    await waitFor(() => sibling!.available());
    const ids = acceptedIds(await connector.submit(sms('79160000001', 'from the first')));
    const siblingIds = acceptedIds(await sibling.submit(sms('79160000002', 'from the sibling')));
    // The first connector's bind is gone when its receipt is due: the SMSC sends it on the sibling's.
    smsc.dropSession(smsc.submissions[0]!.session);
    await waitFor(() => !connector.available());
    clock.advance(60_000);
    await waitFor(() => receipts.length === 2);
    expect(receipts.map((r) => [r.connectorId, r.carrierId]).sort()).toEqual(
      [
        ['smsc-test', ids[0]],
        ['smsc-sibling', siblingIds[0]],
      ].sort(),
    );
  });
});
