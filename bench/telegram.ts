import os from 'node:os';
import { benchEndToEnd } from './endToEnd.js';
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
  const rates = { SMS: [] as number[], TELEGRAM: [] as number[] };
  const cpu = { SMS: [] as number[], TELEGRAM: [] as number[] };
  const loadStart = os.loadavg()[0]!;
  for (let pair = 0; pair < options.pairs; pair++) {
    for (const channel of ['SMS', 'TELEGRAM'] as const) {
      const measured = await options.withSchema((schema) =>
        benchEndToEnd({
          schema,
          messages: options.messages,
          clients: options.clients,
          delayMs: 20,
          split: false,
          callbacks: false,
          channel,
        }),
      );
      rates[channel].push(measured[0]!.value);
      const cpuMs = measured.find((f) => f.name === 'end to end: Herald CPU per message')?.value ?? NaN;
      cpu[channel].push(cpuMs);
      process.stdout.write(
        `  ${channel}: ${measured[0]!.value.toFixed(0)} msg/s, Herald ${cpuMs.toFixed(3)} CPU ms/msg\n`,
      );
    }
  }
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const load = `1-min load ${loadStart.toFixed(1)} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end`;
  const runs = (xs: readonly number[]) => xs.map((x) => x.toFixed(0)).join(' / ');
  return [
    {
      name: 'telegram: TELEGRAM texts end to end',
      value: mean(rates.TELEGRAM),
      unit: 'msg/s',
      note: `${options.messages} texts a run, sendMessage to the simulator; runs ${runs(rates.TELEGRAM)}; ${load}`,
    },
    {
      name: 'telegram: plain SMS end to end, the same run',
      value: mean(rates.SMS),
      unit: 'msg/s',
      note: `${options.messages} SMS a run over SMPP; runs ${runs(rates.SMS)}`,
    },
    {
      name: 'telegram: Herald CPU per TELEGRAM text / per SMS',
      value: mean(cpu.TELEGRAM) / mean(cpu.SMS),
      unit: 'ratio',
      note: `${mean(cpu.TELEGRAM).toFixed(3)} against ${mean(cpu.SMS).toFixed(3)} ms, the Herald process alone`,
    },
    {
      name: 'telegram: TELEGRAM / SMS',
      value: mean(rates.TELEGRAM) / mean(rates.SMS),
      unit: 'ratio',
      target: { op: '>=', value: TARGET_SHARE },
      note: `${options.pairs} alternating pairs (SMS first in each), 1 process (all), ${options.clients} clients`,
    },
  ];
}
