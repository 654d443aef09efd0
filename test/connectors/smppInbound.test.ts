import smpp from 'smpp';
import { afterEach, describe, expect, it } from 'vitest';
import type { SmsInbound } from '../../src/connectors/smpp/smppDeliveries.js';
import { SMPP_STATUS } from '../../src/connectors/smpp/smppErrors.js';
import { SmscSimulator } from '../../src/simulators/smscSimulator.js';
import { waitFor } from '../helpers/waitFor.js';
import { type SmppHarness, startSmpp } from './smppHarness.js';

const receiptText = (id: string, stat: string, err = '000'): string =>
  `id:${id} sub:001 dlvrd:001 submit date:2603100900 done date:2603100901 stat:${stat} err:${err} text:`;

describe('what the SMSC sends an ESME: every request answered, nothing dropped', () => {
  let h: SmppHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('answers a command it does not know, or does not take, with generic_nack ESME_RINVCMDID', async () => {
    h = await startSmpp();
    await waitFor(() => h!.connector.available());
    for (const pdu of [SmscSimulator.unknownCommand(), new smpp.PDU('query_sm', { message_id: '1' })]) {
      const answer = await h.smsc.request(pdu);
      expect(answer).toMatchObject({ command: 'generic_nack', command_status: SMPP_STATUS.RINVCMDID });
    }
    // And the session goes on.
    expect(h.connector.state().state).toBe('bound');
  });

  it('answers data_sm with data_sm_resp and takes a receipt in a data_sm as in a deliver_sm', async () => {
    h = await startSmpp();
    await waitFor(() => h!.connector.available());
    const answer = await h.smsc.request(
      new smpp.PDU('data_sm', {
        source_addr: '79160000001',
        destination_addr: 'Herald',
        esm_class: 0x04,
        receipted_message_id: 'ab12',
        message_state: 2,
      }),
    );
    expect(answer).toMatchObject({ command: 'data_sm_resp', command_status: 0 });
    expect(h.receipts).toMatchObject([{ carrierId: 'ab12', state: 'delivered', errorCode: null }]);
  });

  it('acknowledges intermediate notifications without taking them as final receipts', async () => {
    h = await startSmpp();
    await waitFor(() => h!.connector.available());
    for (const [esmClass, stat] of [
      [0x20, 'DELIVRD'],
      [0x04, 'ENROUTE'],
      [0x04, 'ACCEPTD'],
      [0x08, 'DELIVRD'],
    ] as const) {
      const answer = await h.smsc.request(
        new smpp.PDU('deliver_sm', { esm_class: esmClass, short_message: receiptText('c0ffee', stat) }),
      );
      expect(answer).toMatchObject({ command: 'deliver_sm_resp', command_status: 0 });
    }
    expect(h.receipts).toEqual([]);
  });

  it('keeps a subscriber SMS (deliver_sm or data_sm) instead of dropping it, and logs it in full', async () => {
    h = await startSmpp();
    await waitFor(() => h!.connector.available());
    await h.smsc.request(
      new smpp.PDU('deliver_sm', { source_addr: '79160000001', destination_addr: '4242', short_message: 'STOP' }),
    );
    await h.smsc.request(
      new smpp.PDU('data_sm', {
        source_addr: '79160000002',
        destination_addr: '4242',
        data_coding: 8,
        message_payload: { message: 'Привет' },
      }),
    );
    expect(h.connector.inboundKept()).toMatchObject([
      { from: '79160000001', to: '4242', text: 'STOP' },
      { from: '79160000002', to: '4242', text: 'Привет' },
    ]);
    expect(h.logs.filter((l) => l.inbound).map((l) => (l.inbound as { text: string }).text)).toEqual([
      'STOP',
      'Привет',
    ]);
    expect(h.receipts).toEqual([]);
  });
});

// Their reassembly, durable across restarts, is the inbound sink's: test/inbound/smsParts.test.ts.
describe('the parts of long inbound SMS are handed on one by one, each with its place in the message', () => {
  let h: SmppHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });
  const TEXT = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');

  it.each([
    ['udh8', 0x34],
    ['udh16', 0x1234],
    ['sar', 0x1234],
  ] as const)('reads the reference, count and number of a %s part', async (form, reference) => {
    h = await startSmpp();
    await waitFor(() => h!.connector.available());
    const answers = await h.smsc.sendMo({
      from: '79160000001',
      to: '4242',
      text: TEXT,
      form,
      partSize: 100,
      order: [3, 1, 2],
    });
    expect(answers.map((a) => a?.command_status)).toEqual([0, 0, 0]);
    expect(h.connector.inboundKept()).toMatchObject(
      [3, 1, 2].map((n) => ({
        from: '79160000001',
        to: '4242',
        text: TEXT.slice((n - 1) * 100, n * 100),
        part: { reference, total: 3, sequence: n },
      })),
    );
  });

  it('answers a part only once the inbound sink stored it, and asks for it again when that failed', async () => {
    const stored: SmsInbound[] = [];
    let failNext = true;
    let release: (() => void) | undefined;
    h = await startSmpp({}, {}, undefined, async (_connectorId, messages) => {
      if (failNext) {
        failNext = false;
        throw new Error('database away');
      }
      // The answer waits for the commit.
      await new Promise<void>((resolve) => (release = resolve));
      stored.push(...messages);
    });
    await waitFor(() => h!.connector.available());
    const mo = { from: '79160000001', to: '4242', text: TEXT, partSize: 100, order: [1] };
    const [refused] = await h.smsc.sendMo(mo);
    expect(refused?.command_status).toBe(SMPP_STATUS.RX_T_APPN);
    let answered = false;
    const again = h.smsc.sendMo(mo).then((answers) => {
      answered = true;
      return answers;
    });
    await waitFor(() => release !== undefined);
    expect(answered).toBe(false);
    release!();
    expect((await again)[0]?.command_status).toBe(0);
    expect(stored).toMatchObject([{ text: TEXT.slice(0, 100), part: { total: 3, sequence: 1 } }]);
  });

  it('hands on a message of one part without a part', async () => {
    h = await startSmpp();
    await waitFor(() => h!.connector.available());
    await h.smsc.sendMo({ from: '79160000001', to: '4242', text: 'short', partSize: 100 });
    expect(h.connector.inboundKept()).toEqual([expect.not.objectContaining({ part: expect.anything() })]);
  });
});
