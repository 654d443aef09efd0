import smpp from 'smpp';
import { corkUntilNextTick } from '../src/connectors/index.js';
import { DeliverSmResp, SubmitSm } from '../src/connectors/smpp/hotPdus.js';
import type { SmppClientOptions } from './smpp.js';

/**
 * The bare SMPP client of `BENCH_ONLY=smpp` (bench/smpp.ts) and `BENCH_ONLY=smpp-server` (bench/smppServer.ts), run
 * as a process of its own (bench/smpp.ts runSmppClient): it binds `sessions` transceivers to the simulator or to
 * Herald's SMPP server, keeps `window` submit_sm in flight over them (the same window Herald's connector
 * has), encodes them as Herald does (hotPdus.ts), sends a throttled one again a moment later and answers every
 * receipt; no database, no HTTP. It prints one JSON line: the seconds from the first submit_sm to the last receipt,
 * and the counts.
 */
const options = JSON.parse(process.env.BENCH_SMPP_CLIENT ?? '{}') as SmppClientOptions;
const first = options.first ?? 0;
const ESME_RTHROTTLED = 0x58;
/** How long a throttled message waits before it is sent again: a client's usual back-off is tens of ms. */
const THROTTLED_PAUSE_MS = 20;
/** How long the client waits for each bind's unbind_resp at the end before it closes the socket anyway. */
const UNBIND_WAIT_MS = 5_000;

function bind(): Promise<smpp.Session> {
  return new Promise((resolve, reject) => {
    const session = smpp.connect({ host: options.host ?? '127.0.0.1', port: options.port });
    session.on('error', reject);
    session.on('connect', () =>
      session.send(
        new smpp.PDU('bind_transceiver', {
          system_id: options.systemId,
          password: options.password,
          system_type: 'bench',
          interface_version: 0x34,
        }),
        (response) =>
          response.command_status === 0
            ? resolve(session)
            : reject(new Error(`bind refused: ${response.command_status}`)),
      ),
    );
  });
}

const sessions = await Promise.all(Array.from({ length: options.sessions }, bind));
// The benchmark starts watching the machine's CPU here.
process.stdout.write('bound\n');
let next = 0;
let inFlight = 0;
/** submit_sm in flight per bind. */
const load = sessions.map(() => 0);
let accepted = 0;
let refused = 0;
let throttled = 0;
let receipts = 0;
/** Messages answered ESME_RTHROTTLED (a server's window or rate limit), sent again after THROTTLED_PAUSE_MS. */
const again: number[] = [];
let pausing = 0;
/** When the last submit_sm was answered: the rest of the run waits for receipts. */
let submittedAt = 0;
let receiptsAtSubmitted = 0;
const start = performance.now();
const cpu0 = process.cpuUsage();
await new Promise<void>((resolve) => {
  // Done when every message is answered and every accepted one has its receipt.
  const check = (): void => {
    if (next === options.messages && inFlight + again.length + pausing === 0 && receipts >= accepted) resolve();
  };
  const pump = (): void => {
    while (inFlight < options.window && (again.length > 0 || next < options.messages)) {
      const n = again.shift() ?? next++;
      // The least busy bind: a server answers more than its window on one bind ESME_RTHROTTLED.
      const s = load.indexOf(Math.min(...load));
      const session = sessions[s]!;
      load[s]!++;
      inFlight++;
      corkUntilNextTick(session.socket);
      const pdu = new SubmitSm({
        source_addr: options.source ?? 'Bench',
        source_addr_ton: 5,
        source_addr_npi: 0,
        // Last digit 0: the simulator delivers it.
        destination_addr: `7916${String((first + n) % 1_000_000).padStart(6, '0')}0`,
        dest_addr_ton: 1,
        dest_addr_npi: 1,
        esm_class: 0,
        registered_delivery: 1,
        data_coding: 0,
        validity_period: '',
        short_message: Buffer.from(`Your code is ${String(n % 10_000).padStart(4, '0')}`, 'latin1'),
      });
      session.send(pdu as unknown as smpp.PDU, (response) => {
        inFlight--;
        load[s]!--;
        if (response.command_status === ESME_RTHROTTLED) {
          throttled++;
          pausing++;
          setTimeout(() => {
            pausing--;
            again.push(n);
            pump();
          }, THROTTLED_PAUSE_MS);
        } else if (response.command_status === 0) accepted++;
        else refused++;
        if (next === options.messages && inFlight + again.length + pausing === 0) {
          submittedAt = performance.now();
          receiptsAtSubmitted = receipts;
        }
        pump();
        check();
      });
    }
  };
  for (const session of sessions) {
    session.on('deliver_sm', (pdu: smpp.PDU) => {
      corkUntilNextTick(session.socket);
      session.send(new DeliverSmResp(pdu.sequence_number) as unknown as smpp.PDU);
      receipts++;
      check();
    });
  }
  pump();
});
const seconds = (performance.now() - start) / 1000;
// The CPU of the measured span only (not of starting Node and compiling this file).
const cpu = process.cpuUsage(cpu0);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
const submitSeconds = (submittedAt - start) / 1000;
const result = { seconds, submitSeconds, receiptsAtSubmitted, accepted, refused, throttled, receipts, cpuSeconds };
// The last deliver_sm_resp are still corked (corkUntilNextTick uncorks at the next turn): written first, then each bind
// unbound, so that Herald has every acknowledgement and sends none of these receipts again to the next client of the
// account (a run's warm-up, BENCH_E2E_WARMUP, binds one before the run's).
for (const session of sessions) session.socket.uncork();
await Promise.all(sessions.map(unbound));
process.stdout.write(`${JSON.stringify(result)}\n`);
for (const session of sessions) session.destroy();

/**
 * Resolves when the bind's unbind is answered, its socket closes, or it cannot be sent; after UNBIND_WAIT_MS at the
 * latest, saying so (the run's time then includes the wait, and Herald may send the last receipts again).
 */
function unbound(session: smpp.Session): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      process.stderr.write(`SMPP client: no unbind_resp within ${UNBIND_WAIT_MS} ms\n`);
      resolve();
    }, UNBIND_WAIT_MS);
    const done = (): void => {
      clearTimeout(timer);
      resolve();
    };
    session.socket.once('close', done);
    if (!session.send(new smpp.PDU('unbind', {}), done)) done();
  });
}
