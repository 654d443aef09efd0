import os from 'node:os';
import { benchEndToEnd } from './endToEnd.js';
import type { BenchFigure, BenchSchema } from './lib.js';

export interface ProvidersOptions {
  readonly messages: number;
  readonly clients: number;
  /** Alternating pairs (the built-in connector, then the declarative one) in the same run. */
  readonly pairs: number;
  readonly withSchema: (run: (schema: BenchSchema) => Promise<BenchFigure[]>) => Promise<BenchFigure[]>;
}

/** The targets (issue 30): the declarative connector at least this share of the built-in one's rate... */
const TARGET_RATE_SHARE = 0.9;
/** ...and at most this many times its Herald CPU per message. */
const TARGET_CPU_RATIO = 1.2;

const KINDS = { builtIn: 'built-in vk', declarative: 'declarative herald-vk' } as const;
type Kind = keyof typeof KINDS;

/**
 * The same VK load end to end through the built-in `vk` connector and through the declarative connector of the
 * profile herald-vk (DESIGN 19), which send the same requests to the same provider simulator at the same speed and
 * take the same signed status webhooks (delivered, then read): the difference is the templates, the paths and the
 * status map against code written for the one format. Alternating runs of the same size (each in a schema of its
 * own), so that the machine's load moves both alike; the figures are their ratios.
 */
export async function benchProviders(options: ProvidersOptions): Promise<BenchFigure[]> {
  const rates: Record<Kind, number[]> = { builtIn: [], declarative: [] };
  const cpu: Record<Kind, number[]> = { builtIn: [], declarative: [] };
  const loadStart = os.loadavg()[0]!;
  for (let pair = 0; pair < options.pairs; pair++) {
    for (const kind of ['builtIn', 'declarative'] as const) {
      const measured = await options.withSchema((schema) =>
        benchEndToEnd({
          schema,
          messages: options.messages,
          clients: options.clients,
          delayMs: 20,
          split: false,
          callbacks: false,
          channel: 'VK',
          builtInVk: kind === 'builtIn',
        }),
      );
      rates[kind].push(measured[0]!.value);
      const cpuMs = measured.find((f) => f.name === 'end to end: Herald CPU per message')?.value ?? NaN;
      cpu[kind].push(cpuMs);
      process.stdout.write(
        `  ${KINDS[kind]}: ${measured[0]!.value.toFixed(0)} msg/s, Herald ${cpuMs.toFixed(3)} CPU ms/msg\n`,
      );
    }
  }
  const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const load = `1-min load ${loadStart.toFixed(1)} at the start, ${os.loadavg()[0]!.toFixed(1)} at the end`;
  const runs = (xs: readonly number[]) => xs.map((x) => x.toFixed(0)).join(' / ');
  return [
    {
      name: 'providers: VK through the declarative herald-vk connector',
      value: mean(rates.declarative),
      unit: 'msg/s',
      note:
        `${options.messages} VK texts a run, delivered then read by webhook; ` +
        `runs ${runs(rates.declarative)}; ${load}`,
    },
    {
      name: 'providers: VK through the built-in vk connector, the same run',
      value: mean(rates.builtIn),
      unit: 'msg/s',
      note: `${options.messages} VK texts a run; runs ${runs(rates.builtIn)}`,
    },
    {
      name: 'providers: declarative / built-in rate',
      value: mean(rates.declarative) / mean(rates.builtIn),
      unit: 'ratio',
      target: { op: '>=', value: TARGET_RATE_SHARE },
      note: `${options.pairs} alternating pairs (built-in first in each), 1 process (all), ${options.clients} clients`,
    },
    {
      name: 'providers: Herald CPU per message, declarative / built-in',
      value: mean(cpu.declarative) / mean(cpu.builtIn),
      unit: 'ratio',
      target: { op: '<=', value: TARGET_CPU_RATIO },
      note: `${mean(cpu.declarative).toFixed(3)} against ${mean(cpu.builtIn).toFixed(3)} ms, the Herald process alone`,
    },
  ];
}
