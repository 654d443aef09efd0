import { afterEach, describe, expect, it } from 'vitest';
import type { SmppConnectorConfig } from '../../src/connectors/connectorConfig.js';
import { receiptError, receiptId, submittedId } from '../../src/connectors/smpp/carrierIds.js';
import { MULTIPART_RECEIPT_WAIT_MS } from '../../src/connectors/smpp/multipartReceipts.js';
import { parseReceipt } from '../../src/connectors/smpp/smppMessage.js';
import type { SmscSimulatorOptions } from '../../src/simulators/smscSimulator.js';
import { waitFor } from '../helpers/waitFor.js';
import { acceptedIds, type SmppHarness, sms, startSmpp } from './smppHarness.js';

describe('receipts as SMSCs write them', () => {
  let h: SmppHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it.each([
    ['0012', '12', 'as-is'],
    ['AB12', 'ab12', 'as-is'],
    ['0x0b', '0B', 'as-is'],
    ['2587', 'A1B', 'hex'],
    ['000A1B', '2587', 'decimal'],
    ['not-a-number', 'NOT-A-NUMBER', 'hex'],
  ] as const)('matches submit_sm_resp id %s with receipt id %s (receiptIds %s)', (submitted, reported, form) => {
    expect(receiptId(reported, form)).toBe(submittedId(submitted, form));
  });

  it.each([
    ['000', null],
    ['0', null],
    ['011', 11],
    ['00B', 11],
    ['0x0b', 11],
    ['1A', 26],
    ['-', null],
  ])('reads err:%s as %s', (err, code) => {
    expect(receiptError(err)).toBe(code);
  });

  it.each<[string, Partial<SmscSimulatorOptions>, SmppConnectorConfig['receiptIds']]>([
    ['decimal ids, hex receipts', { submitIds: 'decimal', receiptIds: 'hex', receiptIdsPadded: true }, 'hex'],
    ['hex ids, decimal receipts', { submitIds: 'hex', receiptIds: 'decimal' }, 'decimal'],
    ['hex ids, upper-case zero-padded receipts', { receiptIdsPadded: true }, 'as-is'],
  ])('matches a receipt to its submission over a real session: %s', async (_, simulator, receiptIds) => {
    h = await startSmpp({ receiptIds }, simulator);
    await waitFor(() => h!.connector.available());
    const outcome = await h.connector.submit(sms('79160000001', 'hello'));
    expect(outcome.kind).toBe('accepted');
    await waitFor(() => h!.receipts.length === 1);
    expect(h.receipts[0]!.carrierId).toBe(acceptedIds(outcome)[0]);
  });

  it.each([10, 16] as const)('reads an err: written in base %s', async (base) => {
    h = await startSmpp({}, { undeliveredError: 0x0b, receiptErrBase: base });
    await waitFor(() => h!.connector.available());
    await h.connector.submit(sms('79160000007', 'undelivered'));
    await waitFor(() => h!.receipts.length === 1);
    expect(h.receipts[0]).toMatchObject({ state: 'undelivered', errorCode: 11 });
  });

  it("reads the error of Kannel's NACK text when err: says none", async () => {
    h = await startSmpp({}, { undeliveredError: 0x45, receiptErrInNack: true });
    await waitFor(() => h!.connector.available());
    await h.connector.submit(sms('79160000007', 'refused upstream'));
    await waitFor(() => h!.receipts.length === 1);
    expect(h.receipts[0]).toMatchObject({ state: 'undelivered', errorCode: 0x45 });
  });

  it.each([
    ['stat:UNDELIV err:000 text:NACK/0x0000000b/Invalid Destination Address', 0x0b],
    ['stat:REJECTD err:000 text:NACK/0x45/Submit failed', 0x45],
    ['stat:UNDELIV err:011 text:NACK/0x00000045/Submit failed', 11],
    ['stat:UNDELIV err:000 text:NACK/none', null],
    ['stat:UNDELIV err:000 text:hello', null],
  ])('reads the error code of "%s" as %s', (text, code) => {
    expect(parseReceipt({ text: `id:1a ${text}` })?.errorCode).toBe(code);
  });

  it('takes one receipt for a whole multi-part message as the receipt of each part', async () => {
    h = await startSmpp({}, { multipartReceipts: 'one' });
    const { connector, clock, receipts } = h;
    await waitFor(() => connector.available());
    const outcome = await connector.submit(sms('79160000001', 'x'.repeat(400)));
    const ids = acceptedIds(outcome);
    expect(ids).toHaveLength(3);
    await waitFor(() => receipts.length === 1);
    expect(receipts[0]!.carrierId).toBe(ids[2]);
    clock.advance(MULTIPART_RECEIPT_WAIT_MS);
    await waitFor(() => receipts.length === 3);
    expect(receipts.map((r) => [r.carrierId, r.state]).sort()).toEqual(ids.map((id) => [id, 'delivered']).sort());
  });

  it('adds nothing when the SMSC reports each part', async () => {
    h = await startSmpp({}, { multipartReceipts: 'each' });
    const { connector, clock, receipts } = h;
    await waitFor(() => connector.available());
    await connector.submit(sms('79160000001', 'x'.repeat(400)));
    await waitFor(() => receipts.length === 3);
    clock.advance(MULTIPART_RECEIPT_WAIT_MS);
    expect(receipts).toHaveLength(3);
  });
});
