import { Counter, Gauge } from 'prom-client';
import { callbackSmppWaiting } from '../callbacks/index.js';
import type { AppContext } from '../context.js';

export interface SmppServerMetrics {
  /** Bind attempts by outcome (bound, bad_password, too_many_binds, ...). */
  readonly binds: Counter<'outcome'>;
  /** submit_sm by outcome: `accepted` or the SMPP status name of the refusal. */
  readonly submits: Counter<'outcome'>;
  /** deliver_sm by kind (receipt, intermediate, mo) and outcome (acknowledged, refused, lost). */
  readonly delivers: Counter<'kind' | 'outcome'>;
}

/** The `herald_smpp_server_*` metrics, in the process's registry. */
export function smppServerMetrics(
  ctx: AppContext,
  bound: () => readonly { bind: { type: string } | undefined }[],
): SmppServerMetrics {
  const registers = [ctx.metrics.registry];
  new Gauge({
    name: 'herald_smpp_server_binds',
    help: "Clients' SMPP binds of this process, by bind type",
    labelNames: ['type'],
    registers,
    collect() {
      this.reset();
      for (const type of ['transmitter', 'receiver', 'transceiver']) this.set({ type }, 0);
      for (const cs of bound()) this.inc({ type: cs.bind!.type });
    },
  });
  new Gauge({
    name: 'herald_smpp_server_receipts_waiting',
    help: 'Receipts and MO formed for SMPP binds and not yet acknowledged by a deliver_sm_resp (every process)',
    registers,
    async collect() {
      this.set(await callbackSmppWaiting(ctx.readDb));
    },
  });
  return {
    binds: new Counter({
      name: 'herald_smpp_server_bind_attempts_total',
      help: 'SMPP bind attempts by outcome',
      labelNames: ['outcome'],
      registers,
    }),
    submits: new Counter({
      name: 'herald_smpp_server_submits_total',
      help: 'submit_sm by outcome: accepted, or the SMPP status of the refusal (a long message counts once)',
      labelNames: ['outcome'],
      registers,
    }),
    delivers: new Counter({
      name: 'herald_smpp_server_deliver_sm_total',
      help: 'deliver_sm sent to clients by kind (receipt, intermediate, mo) and outcome (acknowledged, refused, lost)',
      labelNames: ['kind', 'outcome'],
      registers,
    }),
  };
}
