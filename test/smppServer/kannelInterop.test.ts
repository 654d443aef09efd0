import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, type Engine } from '../helpers/engines.js';
import { keyIdOf, startTestHerald } from '../helpers/testHerald.js';
import { KANNEL_BINARIES, type Kannel, type KannelSmsc, kannelInstalled, startKannel } from '../helpers/kannel.js';
import { Receiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/waitFor.js';

/**
 * Kannel's bearerbox, an SMPP client written by others, bound as a transceiver to an SMPP server: every sendsms
 * reaches the SMSC and every receipt comes back to its dlr-url, including across a kill -9 of Kannel mid-run. The
 * server is Herald's SMSC simulator (no database: one run, no engines); `startUpstream` is the one place that
 * names it, and Herald's own SMPP server takes its place there (its bind: a traffic token's key id and secret).
 */

const SKIP_REASON = `Kannel is not installed (${Object.values(KANNEL_BINARIES).join(', ')}; .ci/run installs it)`;

/** Delivery report types Kannel puts in a dlr-url's %d (its guide's dlr-mask bits). */
const DLR = { delivered: 1, undelivered: 2, buffered: 4, smscAccepted: 8 } as const;
const FINAL: readonly number[] = [DLR.delivered, DLR.undelivered];

/** The SMPP server Kannel binds to, and what the test reads of the SMSC at the end of the line. */
interface Upstream {
  readonly smsc: KannelSmsc;
  /** SMS that reached the SMSC, by destination, with their texts. */
  submitted(): readonly { destination: string; source: string; text: string }[];
  /**
   * The binds it took, by command, in order (`bind_transceiver`, ...). Herald's server: the binds up now, from
   * GET /api/v1/smpp-binds (`bindType` transceiver as `bind_transceiver`).
   */
  binds(): Promise<readonly string[]>;
  /**
   * While held, submit_sm go unanswered (the simulator stalls), so that Kannel holds messages it has sent but not
   * had acknowledged when it is killed. Absent for a server that cannot be held (Herald's own).
   */
  hold?(held: boolean): void;
  stop(): Promise<void>;
}

/**
 * Herald's own SMPP server (HERALD_SMPP_PORT) in front of its SMSC simulator (receipts `delayMs` after each
 * submit_sm): Kannel binds with an account's traffic key id and its 8-character SMPP password.
 */
async function startUpstream(delayMs: number, engine: Engine): Promise<Upstream> {
  const t = await startTestHerald(engine, {
    env: { HERALD_SMPP_PORT: '0' },
    delivery: { delayMs },
    smppServer: { pollMs: 50, retryMs: 200 },
  });
  const account = await t.createAccount({ senderNames: [['SMS', 'Herald']] });
  const issued = await t.call('POST', '/api/v1/smpp-passwords', {
    token: account.system,
    body: { keyId: keyIdOf(account.traffic) },
  });
  if (issued.status !== 201) throw new Error(`no SMPP password: ${JSON.stringify(issued.body)}`);
  const smsc = t.simulators!.smsc;
  return {
    smsc: {
      host: '127.0.0.1',
      port: t.herald.smppServer!.port,
      systemId: keyIdOf(account.traffic),
      password: issued.body.password as string,
    },
    submitted: () => smsc.submissions.filter((s) => s.messageId !== null),
    binds: async () => {
      const binds = await t.call('GET', '/api/v1/smpp-binds', { token: account.system });
      return (binds.body.items as { bindType: string }[]).map((b) => `bind_${b.bindType}`);
    },
    stop: () => t.close(),
  };
}

/** One dlr-url request: the test's own message key, Kannel's report type, the SMSC's message id. */
interface Report {
  readonly key: string;
  readonly type: number;
  readonly smscId: string;
}

function reportsOf(receiver: Receiver): Report[] {
  return receiver.received.map((r) => {
    const query = new URL(r.url, 'http://receiver').searchParams;
    return { key: query.get('key') ?? '', type: Number(query.get('type')), smscId: query.get('smscId') ?? '' };
  });
}

/** The dlr-url of one message: Kannel fills in %d (the report type) and %F (the SMSC's message id). */
const dlrUrl = (receiver: Receiver, key: string): string => `${receiver.url}?key=${key}&type=%d&smscId=%F`;

describe.skipIf(!kannelInstalled()).each(ENGINES)(
  `Kannel as an SMPP client of Herald on %s${kannelInstalled() ? '' : ` (${SKIP_REASON})`}`,
  (engine) => {
    let receiver: Receiver;
    let upstream: Upstream | undefined;
    let kannel: Kannel | undefined;

    beforeAll(async () => {
      receiver = await new Receiver().start();
    });
    afterAll(async () => {
      await receiver.stop();
    });
    afterEach(async () => {
      await kannel?.stop();
      await upstream?.stop();
      kannel = undefined;
      upstream = undefined;
      receiver.received.length = 0;
    }, 30_000);

    /** Final reports (delivered or undelivered) by message key. */
    const finals = (): Map<string, Report[]> => {
      const byKey = new Map<string, Report[]>();
      for (const report of reportsOf(receiver).filter((r) => FINAL.includes(r.type)))
        byKey.set(report.key, [...(byKey.get(report.key) ?? []), report]);
      return byKey;
    };

    it('binds as a transceiver; each sendsms reaches the SMSC and its receipts come back to its dlr-url', async () => {
      upstream = await startUpstream(50, engine);
      kannel = await startKannel({ smsc: upstream.smsc });
      expect(await upstream.binds()).toEqual(['bind_transceiver']);

      // Destinations ending 0-5 are delivered, 7 undelivered.
      const messages = ['0', '1', '2', '3', '4', '5', '7', '7'].map((digit, i) => ({
        key: `m${i}`,
        to: `+79160000${String(i).padStart(2, '0')}${digit}`,
        text: `Kannel test ${i}`,
      }));
      for (const m of messages) {
        const answer = await kannel.sendsms({
          to: m.to,
          from: 'Herald',
          text: m.text,
          dlrUrl: dlrUrl(receiver, m.key),
        });
        expect(answer).toMatchObject({ status: 202, body: expect.stringMatching(/Accepted for delivery/) });
      }

      // Three reports each: the SMSC's acceptance, the intermediate one (dlr-mask 31 has 4, which Kannel asks for with
      // registered_delivery bit 4: Herald's notification of the hand-over to a carrier) and the final one.
      await waitFor(() => finals().size === messages.length && receiver.received.length === 3 * messages.length, {
        timeoutMs: 20_000,
        describe: () => `${finals().size} of ${messages.length} final reports: ${JSON.stringify(reportsOf(receiver))}`,
      });
      // Each reached the SMSC once (a server in front of it may send them in another order).
      const byText = (a: string[], b: string[]): number => a[2]!.localeCompare(b[2]!);
      expect(
        upstream
          .submitted()
          .map((s) => [s.destination, s.source, s.text])
          .sort(byText),
      ).toEqual(messages.map((m) => [m.to.slice(1), 'Herald', m.text]).sort(byText));
      const reports = reportsOf(receiver);
      for (const m of messages) {
        const own = reports.filter((r) => r.key === m.key);
        // The SMSC's acceptance (8), the intermediate report (4) and one final report, all with the SMSC's message
        // id. smsbox fetches dlr-urls in parallel: they may come in any order.
        const undelivered = m.to.endsWith('7');
        expect(own.map((r) => r.type).sort((a, b) => a - b)).toEqual(
          [DLR.smscAccepted, DLR.buffered, undelivered ? DLR.undelivered : DLR.delivered].sort((a, b) => a - b),
        );
        expect(own[0]!.smscId).not.toBe('');
        expect(own.every((r) => r.smscId === own[0]!.smscId)).toBe(true);
      }
    }, 60_000);

    it('gets every receipt after Kannel is killed with SIGKILL mid-run and started again', async () => {
      // Receipts a second and a half after each submission: when Kannel dies, the SMSC owes it receipts of messages
      // it accepted (Kannel keeps their dlr-url in its DLR spool), and Kannel holds messages not yet acknowledged (its
      // message store) or not yet taken from smsbox.
      upstream = await startUpstream(1500, engine);
      kannel = await startKannel({ smsc: upstream.smsc });
      const accepted: string[] = [];
      const send = async (key: string, n: number): Promise<void> => {
        const answer = await kannel!
          .sendsms({
            to: `+791610${String(n).padStart(4, '0')}0`,
            from: 'Herald',
            text: key,
            dlrUrl: dlrUrl(receiver, key),
          })
          .catch(() => undefined);
        // A request cut by the kill may or may not have reached bearerbox: only those Kannel answered are owed.
        if (answer?.status === 202) accepted.push(key);
      };

      // 60 messages, 6 requests at a time; Kannel is killed once the SMSC has taken 20 of them.
      const total = 60;
      let next = 0;
      let killed = false;
      const sender = async (): Promise<void> => {
        while (next < total && !killed) {
          const n = next++;
          await send(`before-${n}`, n);
        }
      };
      const senders = Array.from({ length: 6 }, sender);
      await waitFor(() => upstream!.submitted().length >= 20, { timeoutMs: 20_000, describe: () => kannel!.logs() });
      if (upstream.hold) {
        // The SMSC stops answering: the next messages Kannel accepts are in flight or queued when it dies.
        const taken = upstream.submitted().length;
        upstream.hold(true);
        await waitFor(() => accepted.length >= taken + 5, { timeoutMs: 20_000, describe: () => kannel!.logs() });
      }
      killed = true;
      await kannel.kill();
      await Promise.all(senders);
      upstream.hold?.(false);
      // The kill came while receipts were owed, and (when held) with messages Kannel had not had acknowledged.
      const reachedBeforeKill = new Set(upstream.submitted().map((s) => s.text));
      const heldAtKill = accepted.filter((key) => !reachedBeforeKill.has(key));
      expect(finals().size).toBeLessThan(reachedBeforeKill.size);
      if (upstream.hold) expect(heldAtKill.length).toBeGreaterThan(0);

      await kannel.restart();
      // Some more after the restart, on the same link.
      for (let n = 0; n < 10; n++) await send(`after-${n}`, 1000 + n);

      const missing = (): string[] => accepted.filter((key) => !finals().has(key));
      await waitFor(() => missing().length === 0, {
        timeoutMs: 60_000,
        describe: () => `no final report for ${missing().join(', ')}\n${kannel!.logs()}`,
      });
      for (const key of accepted)
        expect(
          finals()
            .get(key)!
            .every((r) => r.type === DLR.delivered),
        ).toBe(true);
      // Every message the SMSC took has its report; a message whose acknowledgement the kill cut is sent again from
      // Kannel's store (at least once: its own guide says a violent stop may duplicate), its first receipt then
      // unknown to Kannel.
      expect(accepted.length).toBeGreaterThanOrEqual(30);
      // Bound again after the restart, as a transceiver.
      expect((await upstream.binds()).at(-1)).toBe('bind_transceiver');
    }, 120_000);
  },
);
