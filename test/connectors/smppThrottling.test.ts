import { afterEach, describe, expect, it } from 'vitest';
import type { SubmitOutcome } from '../../src/connectors/connector.js';
import { SMPP_STATUS } from '../../src/connectors/smpp/smppErrors.js';
import { THROTTLE_PAUSE_MAX_MS, THROTTLE_PAUSE_MIN_MS } from '../../src/connectors/smpp/smscThrottling.js';
import { waitFor } from '../helpers/waitFor.js';
import { type SmppHarness, sms, startSmpp } from './smppHarness.js';

describe('an SMSC that throttles: the connector pauses, slows down and recovers', () => {
  let h: SmppHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it.each([
    ['ESME_RTHROTTLED', SMPP_STATUS.RTHROTTLED],
    ['ESME_RMSGQFUL', SMPP_STATUS.RMSGQFUL],
  ])(
    'pauses every sending on %s with a growing pause, probing with one PDU before the others go',
    async (_, status) => {
      h = await startSmpp({ mps: 1000 });
      const { smsc, connector, clock } = h;
      await waitFor(() => connector.available());
      smsc.refuseSubmissions(status);
      const outcomes = Promise.all([1, 2, 3, 4, 5].map((i) => connector.submit(sms(`7916000000${i}`, `hello ${i}`))));
      await waitFor(() => smsc.submissions.length === 5);
      // Five refusals of PDUs sent together: one step.
      expect(connector.throttlingState()).toEqual({ pausedForMs: THROTTLE_PAUSE_MIN_MS, steps: 1, rate: 500 });
      // After the pause one PDU goes alone, a probe; refused, it starts the next, longer pause.
      clock.advance(THROTTLE_PAUSE_MIN_MS);
      await waitFor(() => connector.throttlingState().steps === 2);
      expect(smsc.submissions.length).toBe(6);
      expect(connector.throttlingState()).toEqual({ pausedForMs: 2 * THROTTLE_PAUSE_MIN_MS, steps: 2, rate: 250 });
      clock.advance(2 * THROTTLE_PAUSE_MIN_MS);
      await waitFor(() => connector.throttlingState().steps === 3);
      expect(smsc.submissions.length).toBe(7);
      expect(connector.throttlingState().rate).toBe(125);
      smsc.refuseSubmissions(undefined);
      // The probe is taken: the four others follow it.
      clock.advance(4 * THROTTLE_PAUSE_MIN_MS);
      const results = await outcomes;
      expect(results.map((r) => r.kind)).toEqual(Array(5).fill('accepted'));
      expect(
        smsc
          .messages()
          .map((m) => m.text)
          .sort(),
      ).toEqual([1, 2, 3, 4, 5].map((i) => `hello ${i}`));
      expect(connector.throttlingState().steps).toBe(0);

      // The rate recovers a step per second of sending without refusals, up to the configured mps.
      for (let step = 0; step < 4; step++) {
        clock.advance(1000);
        expect((await connector.submit(sms('79160000001', `after ${step}`))).kind).toBe('accepted');
      }
      expect(connector.throttlingState().rate).toBe(1000);
    },
  );

  it('hands a message back to the queue until the pause ends when the SMSC stays busy', async () => {
    h = await startSmpp();
    const { smsc, connector, clock } = h;
    await waitFor(() => connector.available());
    smsc.refuseSubmissions(SMPP_STATUS.RTHROTTLED);
    let outcome: SubmitOutcome | undefined;
    void connector.submit(sms('79160000001', 'busy')).then((o) => (outcome = o));
    let tries = 0;
    while (!outcome) {
      // The SMSC has the PDU before the connector has its refusal: the clock moves once the pause it starts is set
      // (moved by the pause read before that, 0, it never ends, and nothing is sent again).
      await waitFor(
        () => outcome !== undefined || (smsc.submissions.length > tries && connector.throttlingState().pausedForMs > 0),
      );
      tries = smsc.submissions.length;
      if (!outcome) clock.advance(connector.throttlingState().pausedForMs);
    }
    const pauses = [1, 2, 4].map((n) => n * THROTTLE_PAUSE_MIN_MS);
    // 0.5 + 1 + 2 + 4 + 4 s of pauses: the sixth pause would end after the submission's 10 s.
    expect(smsc.submissions.length).toBe(pauses.length + 2);
    expect(outcome).toMatchObject({
      kind: 'transient',
      retryAfterMs: THROTTLE_PAUSE_MAX_MS,
      errorCode: SMPP_STATUS.RTHROTTLED,
    });
  });
});

describe('an SMSC that throttles a share of submits', () => {
  let h: SmppHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('gets every message accepted once when a fifth of submits are refused', async () => {
    h = await startSmpp({ window: 10 });
    const { smsc, connector, clock } = h;
    await waitFor(() => connector.available());
    smsc.refuseShare(SMPP_STATUS.RTHROTTLED, 0.2);
    const outcomes = Promise.all(
      Array.from({ length: 50 }, (_, i) => connector.submit(sms(`79160${String(i).padStart(5, '0')}1`, `share ${i}`))),
    );
    let done = false;
    void outcomes.then(() => (done = true));
    // Through each pause as it comes: the connector's own clock, no more.
    for (;;) {
      await waitFor(() => done || connector.throttlingState().pausedForMs > 0);
      if (done) break;
      clock.advance(connector.throttlingState().pausedForMs);
    }
    expect((await outcomes).map((o) => o.kind)).toEqual(Array(50).fill('accepted'));
    const accepted = smsc.submissions.filter((s) => s.messageId !== null).map((s) => s.text);
    expect(new Set(accepted).size).toBe(50);
    expect(accepted).toHaveLength(50);
  });

  it('sends a refused PDU again without pausing while most answers are acceptances', async () => {
    h = await startSmpp({ window: 10 });
    const { smsc, connector } = h;
    await waitFor(() => connector.available());
    const batch = (from: number, n: number) =>
      Promise.all(
        Array.from({ length: n }, (_, i) => connector.submit(sms(`79161${String(from + i).padStart(5, '0')}1`, 'x'))),
      );
    await batch(0, 20);
    const { rate } = connector.throttlingState();
    smsc.refuseShare(SMPP_STATUS.RTHROTTLED, 0.2);
    const outcomes = await batch(20, 50);
    expect(outcomes.map((o) => o.kind)).toEqual(Array(50).fill('accepted'));
    // Never paused (the clock never moved) and every refused PDU went once more: 50 accepted, a fifth refused.
    expect(connector.throttlingState()).toEqual({ pausedForMs: 0, steps: 0, rate });
    const after = smsc.submissions.slice(20);
    expect(after.filter((s) => s.messageId !== null)).toHaveLength(50);
    expect(after.filter((s) => s.status === SMPP_STATUS.RTHROTTLED).length).toBeGreaterThanOrEqual(10);
  });
});
