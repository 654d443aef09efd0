import { alternatingEndToEnd, meanOf, runsOf } from './endToEnd.js';
import type { BenchFigure, BenchSchema } from './lib.js';

export interface TelegramOptions {
  readonly messages: number;
  readonly clients: number;
  /** Alternating pairs (SMS, then TELEGRAM) in the same run. */
  readonly pairs: number;
  readonly withSchema: (run: (schema: BenchSchema) => Promise<BenchFigure[]>) => Promise<BenchFigure[]>;
}

/** The target: TELEGRAM end to end at least this share of plain SMS's rate in the same run (issue 29). */
const TARGET_SHARE = 0.8;

/**
 * TELEGRAM texts end to end through the Telegram simulator's Bot API against plain SMS through the SMSC simulator,
 * in alternating runs of the same size on the same machine (each in a schema of its own): the machine's load moves
 * both alike, and the figure is their ratio. A TELEGRAM text is one sendMessage whose answer is its outcome (no
 * receipt comes later), where an SMS is a submit_sm and a deliver_sm receipt 20 ms later.
 */
export async function benchTelegram(options: TelegramOptions): Promise<BenchFigure[]> {
  const { rates, cpu, load } = await alternatingEndToEnd(options, {
    SMS: { label: 'SMS', run: { channel: 'SMS' } },
    TELEGRAM: { label: 'TELEGRAM', run: { channel: 'TELEGRAM' } },
  });
  return [
    {
      name: 'telegram: TELEGRAM texts end to end',
      value: meanOf(rates.TELEGRAM),
      unit: 'msg/s',
      note: `${options.messages} texts a run, sendMessage to the simulator; runs ${runsOf(rates.TELEGRAM)}; ${load}`,
    },
    {
      name: 'telegram: plain SMS end to end, the same run',
      value: meanOf(rates.SMS),
      unit: 'msg/s',
      note: `${options.messages} SMS a run over SMPP; runs ${runsOf(rates.SMS)}`,
    },
    {
      name: 'telegram: Herald CPU per TELEGRAM text / per SMS',
      value: meanOf(cpu.TELEGRAM) / meanOf(cpu.SMS),
      unit: 'ratio',
      note: `${meanOf(cpu.TELEGRAM).toFixed(3)} against ${meanOf(cpu.SMS).toFixed(3)} ms, the Herald process alone`,
    },
    {
      name: 'telegram: TELEGRAM / SMS',
      value: meanOf(rates.TELEGRAM) / meanOf(rates.SMS),
      unit: 'ratio',
      target: { op: '>=', value: TARGET_SHARE },
      note: `${options.pairs} alternating pairs (SMS first in each), 1 process (all), ${options.clients} clients`,
    },
  ];
}
