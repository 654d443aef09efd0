import { afterEach, describe, expect, it } from 'vitest';
import { SMPP_STATUS } from '../../src/connectors/smpp/smppErrors.js';
import { THROTTLE_PAUSE_MIN_MS } from '../../src/connectors/smpp/smscThrottling.js';
import { waitFor } from '../helpers/waitFor.js';
import { acceptedIds, type SmppHarness, sms, smppConfig, startSmpp } from './smppHarness.js';
import { SmppConnector } from '../../src/connectors/smpp/smppConnector.js';
import pino from 'pino';

const LONG = 'x'.repeat(400);

/** How many times the SMSC accepted each part number. */
const acceptedParts = (h: SmppHarness): Record<number, number> => {
  const counts: Record<number, number> = {};
  for (const s of h.smsc.submissions) {
    if (s.messageId !== null && s.concat) counts[s.concat.sequence] = (counts[s.concat.sequence] ?? 0) + 1;
  }
  return counts;
};

describe('a multi-part message is never sent whole again: accepted parts go once', () => {
  let h: SmppHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('sends again only the part the SMSC refused, with the same reference, and completes the message', async () => {
    h = await startSmpp();
    await waitFor(() => h!.connector.available());
    h.smsc.refusePart(2, SMPP_STATUS.RSYSERR);
    const message = sms('79160000001', LONG, 'multi-1');
    const first = await h.connector.submit(message);
    expect(first).toMatchObject({ kind: 'transient', errorCode: SMPP_STATUS.RSYSERR });
    expect(acceptedParts(h)).toEqual({ 1: 1, 3: 1 });
    const again = await h.connector.submit(message);
    expect(acceptedIds(again)).toHaveLength(3);
    expect(acceptedParts(h)).toEqual({ 1: 1, 2: 1, 3: 1 });
    expect(new Set(h.smsc.submissions.map((s) => s.concat!.reference)).size).toBe(1);
    expect(h.smsc.messages()).toMatchObject([{ text: LONG, parts: 3 }]);
    // Its receipts match the ids of the outcome, the early parts' included.
    await waitFor(() => h!.receipts.length === 3);
    expect(h.receipts.map((r) => r.carrierId).sort()).toEqual([...acceptedIds(again)].sort());
  });

  it('sends again only a throttled part, after the pause, within one submission', async () => {
    h = await startSmpp();
    await waitFor(() => h!.connector.available());
    h.smsc.refusePart(2, SMPP_STATUS.RTHROTTLED);
    const outcome = h.connector.submit(sms('79160000001', LONG));
    await waitFor(() => h!.connector.throttlingState().steps === 1);
    h.clock.advance(THROTTLE_PAUSE_MIN_MS);
    expect(acceptedIds(await outcome)).toHaveLength(3);
    expect(acceptedParts(h)).toEqual({ 1: 1, 2: 1, 3: 1 });
  });

  it('keeps the message to the connector whose SMSC holds its accepted parts', async () => {
    h = await startSmpp();
    await waitFor(() => h!.connector.available());
    h.smsc.refusePart(3, SMPP_STATUS.RSYSERR);
    const message = sms('79160000001', LONG, 'multi-2');
    expect((await h.connector.submit(message)).kind).toBe('transient');
    const sibling = new SmppConnector(
      { ...smppConfig(h.smsc.port), id: 'smsc-other' },
      async () => undefined,
      pino({ level: 'silent' }),
      h.clock,
    );
    await sibling.start();
    try {
      await waitFor(() => sibling.available());
      expect(await sibling.submit(message)).toMatchObject({
        kind: 'transient',
        reason: expect.stringMatching(/accepted through smsc-test/),
      });
    } finally {
      await sibling.stop();
    }
    expect(acceptedIds(await h.connector.submit(message))).toHaveLength(3);
    expect(acceptedParts(h)).toEqual({ 1: 1, 2: 1, 3: 1 });
  });

  it('forgets the accepted parts of a message refused for good', async () => {
    h = await startSmpp();
    await waitFor(() => h!.connector.available());
    h.smsc.refusePart(2, SMPP_STATUS.RINVDSTADR);
    const message = sms('79160000001', LONG, 'multi-3');
    expect(await h.connector.submit(message)).toMatchObject({ kind: 'permanent', errorCode: SMPP_STATUS.RINVDSTADR });
  });
});
