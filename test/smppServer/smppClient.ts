import smpp from 'smpp';
import { expect } from 'vitest';
import { ESME } from '../../src/smppServer/smppStatuses.js';
import { keyIdOf, secretOf, type TestAccount, type TestHerald } from '../helpers/testHerald.js';

/**
 * A client of Herald's SMPP server in tests: the `smpp` package's client session on a real socket, recording every
 * deliver_sm and answering it (ESME_ROK) unless told to hold the answers.
 */
export class SmppTestClient {
  readonly delivered: smpp.PDU[] = [];
  /** deliver_sm received and not answered (while `holding`). */
  readonly held: smpp.PDU[] = [];
  /** Answer deliver_sm? While false they are kept in `held`, unanswered. */
  answering = true;
  /** Requests of the server other than deliver_sm (unbind, ...). */
  readonly requests: smpp.PDU[] = [];
  closed = false;

  private constructor(readonly session: smpp.Session) {
    session.on('close', () => {
      this.closed = true;
    });
    session.on('error', () => undefined);
    session.on('pdu', (pdu: smpp.PDU) => {
      if (pdu.command === 'deliver_sm') {
        this.delivered.push(pdu);
        if (this.answering) session.send(pdu.response());
        else this.held.push(pdu);
      } else if (!pdu.isResponse()) {
        this.requests.push(pdu);
        if (pdu.command === 'unbind') session.send(pdu.response());
      }
    });
  }

  static connect(port: number): Promise<SmppTestClient> {
    return new Promise((resolve, reject) => {
      const session = smpp.connect({ host: '127.0.0.1', port });
      session.once('error', reject);
      session.once('connect', () => {
        session.off('error', reject);
        resolve(new SmppTestClient(session));
      });
    });
  }

  /** Connects and binds; resolves with the client and the bind's answer. */
  static async bound(
    port: number,
    systemId: string,
    password: string,
    command: 'bind_transmitter' | 'bind_receiver' | 'bind_transceiver' = 'bind_transceiver',
  ): Promise<{ client: SmppTestClient; answer: smpp.PDU }> {
    const client = await SmppTestClient.connect(port);
    const answer = await client.request(command, { system_id: systemId, password });
    return { client, answer };
  }

  /** Sends a request and resolves with its answer. */
  request(command: string, fields: Record<string, unknown> = {}): Promise<smpp.PDU> {
    return this.send(new smpp.PDU(command, fields));
  }

  send(pdu: smpp.PDU): Promise<smpp.PDU> {
    return new Promise((resolve, reject) => {
      if (!this.session.send(pdu, resolve)) reject(new Error('socket not writable'));
    });
  }

  submit(fields: Record<string, unknown>): Promise<smpp.PDU> {
    return this.request('submit_sm', fields);
  }

  /** Answers the held deliver_sm. */
  answerHeld(count = this.held.length): void {
    for (const pdu of this.held.splice(0, count)) this.session.send(pdu.response());
  }

  /** The receipted message ids of the deliver_sm received. */
  receiptIds(): string[] {
    return this.delivered.filter((p) => Number(p.esm_class) === 0x04).map((p) => String(p.receipted_message_id));
  }

  destroy(): void {
    this.session.destroy();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await new Promise<void>((resolve) => this.session.destroy(() => resolve()));
  }
}

/**
 * Binds with the account's traffic token (system_id its key id, password its secret), expecting ESME_ROK; the client
 * joins `clients`, which the test closes.
 */
export async function bindAccount(
  herald: TestHerald,
  account: TestAccount,
  command: 'bind_transmitter' | 'bind_receiver',
  clients: SmppTestClient[],
): Promise<SmppTestClient> {
  const { client, answer } = await SmppTestClient.bound(
    herald.herald.smppServer!.port,
    keyIdOf(account.traffic),
    secretOf(account.traffic),
    command,
  );
  clients.push(client);
  expect(answer.command_status).toBe(ESME.ROK);
  return client;
}

/** Submits `count` messages to a number the simulator delivers, each asking for its receipt; their message ids. */
export async function submitWithReceipts(client: SmppTestClient, count: number): Promise<string[]> {
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      client.submit({
        source_addr: 'Herald',
        destination_addr: '79161234561',
        short_message: `Receipt ${i}`,
        registered_delivery: 1,
      }),
    ),
  );
  for (const answer of answers) expect(answer.command_status).toBe(ESME.ROK);
  return answers.map((a) => String(a.message_id));
}
