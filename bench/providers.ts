import { alternatingEndToEnd, meanOf, runsOf } from './endToEnd.js';
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

/**
 * The same VK load end to end through the built-in `vk` connector and through the declarative connector of the
 * profile herald-vk (DESIGN 19), which send the same requests to the same provider simulator at the same speed and
 * take the same signed status webhooks (delivered, then read): the difference is the templates, the paths and the
 * status map against code written for the one format. Alternating runs of the same size (each in a schema of its
 * own), so that the machine's load moves both alike; the figures are their ratios.
 */
export async function benchProviders(options: ProvidersOptions): Promise<BenchFigure[]> {
  const { rates, cpu, load } = await alternatingEndToEnd(options, {
    builtIn: { label: 'built-in vk', run: { channel: 'VK', builtInVk: true } },
    declarative: { label: 'declarative herald-vk', run: { channel: 'VK' } },
  });
  return [
    {
      name: 'providers: VK through the declarative herald-vk connector',
      value: meanOf(rates.declarative),
      unit: 'msg/s',
      note:
        `${options.messages} VK texts a run, delivered then read by webhook; ` +
        `runs ${runsOf(rates.declarative)}; ${load}`,
    },
    {
      name: 'providers: VK through the built-in vk connector, the same run',
      value: meanOf(rates.builtIn),
      unit: 'msg/s',
      note: `${options.messages} VK texts a run; runs ${runsOf(rates.builtIn)}`,
    },
    {
      name: 'providers: declarative / built-in rate',
      value: meanOf(rates.declarative) / meanOf(rates.builtIn),
      unit: 'ratio',
      target: { op: '>=', value: TARGET_RATE_SHARE },
      note: `${options.pairs} alternating pairs (built-in first in each), 1 process (all), ${options.clients} clients`,
    },
    {
      name: 'providers: Herald CPU per message, declarative / built-in',
      value: meanOf(cpu.declarative) / meanOf(cpu.builtIn),
      unit: 'ratio',
      target: { op: '<=', value: TARGET_CPU_RATIO },
      note: `${meanOf(cpu.declarative).toFixed(3)} against ${meanOf(cpu.builtIn).toFixed(3)} ms, Herald alone`,
    },
  ];
}
