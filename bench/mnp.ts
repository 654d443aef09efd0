import { Readable } from 'node:stream';
import pino from 'pino';
import { migrate } from '../src/db/migrate.js';
import { openPostgres } from '../src/db/postgresDb.js';
import { mnpBrands, PortedNumbers } from '../src/mnp/index.js';
import { MnpImporter } from '../src/mnp/mnpImporter.js';
import { mnpImportGet } from '../src/mnp/mnpSql.js';
import { NumberingPlan } from '../src/numbering/index.js';
import { systemClock } from '../src/util/clock.js';
import { type BenchFigure, type BenchSchema, machineDescription, percentile, uptime } from './lib.js';

const OWNERS = ['mMTS', 'mMEGAFON', 'mBEELINE', 'mTELE2', 'mMTT', 'mYOTA'];

/** The i-th number of the generated base, spread over the 9xx codes: 7 9xx xxxxxxx. */
const numberAt = (i: number): string => `79${String((i * 7919) % 1_000_000_000).padStart(9, '0')}`;

/** A Port_All file of `rows` rows (about 62 bytes each), made as it is read. */
function* portAll(rows: number): Generator<Buffer> {
  yield Buffer.from('Number,OwnerId,MNC,Route,RegionCode,PortDate,RowCount\r\n');
  for (let i = 0; i < rows;) {
    const lines: string[] = [];
    for (const end = Math.min(rows, i + 10_000); i < end; i++) {
      const owner = OWNERS[i % OWNERS.length];
      lines.push(`${numberAt(i).slice(1)},${owner},02,D7702,77,2024-05-01T10:00:00+03:00,${i === 0 ? rows : ''}\r\n`);
    }
    yield Buffer.from(lines.join(''));
  }
}

/**
 * The number portability import (DESIGN 21, docs/mnp.md): a generated Port_All file of `rows` rows imported into a
 * fresh schema through the importer the route uses (received into a temporary file, loaded 10,000 rows a statement,
 * indexed, swapped in), on PostgreSQL; then the look-up of a batch of 1000 destinations against the loaded base.
 */
export async function benchMnp(options: { schema: BenchSchema; rows: number }): Promise<BenchFigure[]> {
  const { schema, rows } = options;
  const db = openPostgres({ url: schema.url, poolSize: 4 });
  try {
    await migrate(db);
    const importer = new MnpImporter({
      db,
      clock: systemClock,
      log: pino({ level: 'silent' }),
      planBrands: NumberingPlan.load().brands(),
      ported: new PortedNumbers(),
    });
    const loadBefore = uptime();
    const started = performance.now();
    const { importId } = await importer.receive(Readable.from(portAll(rows)), Number.MAX_SAFE_INTEGER);
    const received = performance.now();
    await importer.settled();
    const finished = performance.now();
    const done = await mnpImportGet(db, importId);
    if (done?.state !== 'done') throw new Error(`import ${importId} ended ${done?.state}: ${done?.failure}`);
    const loadAfter = uptime();

    // 1000 destinations, half of them ported, as a batch of messages brings them.
    const timings: number[] = [];
    for (let round = 0; round < 50; round++) {
      const destinations = Array.from({ length: 1000 }, (_, k) =>
        k % 2 === 0 ? numberAt((round * 1000 + k) % rows) : `7${String(9_000_000_000 + round * 1000 + k)}`,
      );
      const at = performance.now();
      await mnpBrands(db, destinations);
      timings.push(performance.now() - at);
    }
    timings.sort((a, b) => a - b);
    const seconds = (finished - started) / 1000;
    const note =
      `${rows} rows, ${(done.bytes / 2 ** 20).toFixed(0)} MiB; ${machineDescription()}; ` +
      `before: ${loadBefore}; after: ${loadAfter}`;
    process.stdout.write(
      `  received in ${((received - started) / 1000).toFixed(1)} s, loaded, indexed and swapped in ` +
        `${((finished - received) / 1000).toFixed(1)} s more (${note})\n`,
    );
    return [
      { name: `mnp: import of ${rows} rows (receive, load, index, swap)`, value: seconds, unit: 's', note },
      { name: 'mnp: import rate', value: Math.round(rows / seconds), unit: 'rows/s' },
      { name: 'mnp: look-up of 1000 destinations, p50', value: percentile(timings, 50), unit: 'ms' },
      { name: 'mnp: look-up of 1000 destinations, p99', value: percentile(timings, 99), unit: 'ms' },
    ];
  } finally {
    await db.close();
  }
}
