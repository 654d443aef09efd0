import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import type { Db } from '../db/db.js';
import { herald } from '../errors/catalogue.js';
import type { Clock } from '../util/clock.js';
import {
  type MnpImportState,
  mnpImportFail,
  mnpImportIndex,
  mnpImportProgress,
  mnpImportRowsAdd,
  mnpImportStart,
  mnpImportSwap,
  mnpImportTableCreate,
  mnpOperatorIds,
} from './mnpSql.js';
import { ownerBrand, planBrandsByKey } from './operatorBrands.js';
import type { PortedNumbers } from './portedNumbers.js';
import { linesOf, type PortedRow, PortingLayout } from './portingCsv.js';

/**
 * Rows a statement adds: 10,000 rows of 6 arrays are about 400 KB of parameters, and a statement of them takes
 * tens of milliseconds, so requests on the embedded database wait at most that long between two of them.
 */
export const LOAD_BATCH = 10_000;
/** Refused rows an import keeps, with their line numbers; errorCount counts them all. */
export const IMPORT_ERRORS_KEPT = 100;
/** An import whose progress stood still this long is taken as interrupted (its process stopped) by the next one. */
export const STALE_IMPORT_MS = 5 * 60_000;
/** How often a running import records its progress at least (bytes received, rows loaded). */
const PROGRESS_EVERY_MS = 2000;
/** Swap attempts (each waits at most SWAP_LOCK_TIMEOUT_MS for lookups to end) before the import fails. */
const SWAP_ATTEMPTS = 20;

export interface MnpImporterDeps {
  /** Where the import's statements go: on the embedded database, the background one (requests go first). */
  readonly db: Db;
  readonly clock: Clock;
  readonly log: Logger;
  /** The numbering plan's brands, which ported numbers' owners are named by where they are the same operator. */
  readonly planBrands: Iterable<string>;
  readonly ported: PortedNumbers;
}

/** What the receipt of a file answers: the import, now loading in the background. */
export interface ImportReceived {
  readonly importId: number;
  readonly state: MnpImportState;
}

/**
 * Imports number portability files (docs/mnp.md): receives a file into a temporary file (state `receiving`), then,
 * after the answer, loads it into a table of the import's own (`loading`), builds its index (`indexing`) and swaps
 * it in for the current base in one short transaction (`done`). A file whose rows are mostly invalid, or any other
 * failure, leaves the current base as it is (`failed`). One import at a time, across processes.
 */
export class MnpImporter {
  private readonly running = new Set<Promise<void>>();
  private stopping = false;
  private readonly planBrands: Map<string, string>;

  constructor(private readonly deps: MnpImporterDeps) {
    this.planBrands = planBrandsByKey(deps.planBrands);
  }

  /**
   * Starts an import and receives its file from `body`, at most `limit` bytes (413 4130 beyond, and the import
   * fails); resolves once the file is whole, its load started in the background. 409 4091 while another runs.
   */
  async receive(body: AsyncIterable<Buffer>, limit: number): Promise<ImportReceived> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const id = await mnpImportStart(db, now, new Date(now.getTime() - STALE_IMPORT_MS));
    if (id === undefined) throw herald('conflict', { reason: 'A number portability import is running' });
    let folder: string | undefined;
    try {
      folder = await mkdtemp(path.join(tmpdir(), 'herald-mnp-'));
      const file = path.join(folder, 'base.csv');
      const bytes = await this.spool(id, body, file, limit);
      await mnpImportProgress(db, id, { state: 'loading', bytes }, clock.now());
      const dir = folder;
      const load = this.load(id, file)
        .catch((error: unknown) => this.fail(id, error))
        .finally(async () => {
          this.running.delete(load);
          await rm(dir, { recursive: true, force: true });
        });
      this.running.add(load);
      return { importId: id, state: 'loading' };
    } catch (error) {
      await this.fail(id, error);
      if (folder) await rm(folder, { recursive: true, force: true });
      throw error;
    }
  }

  /** Resolves once the imports running in this process have ended (done or failed). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all(this.running);
  }

  /** Stops the running imports at their next batch (they fail: the base stays) and waits for them. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.settled();
  }

  /** Writes the body to `file`, counting its bytes and recording them as they come. */
  private async spool(id: number, body: AsyncIterable<Buffer>, file: string, limit: number): Promise<number> {
    const { db, clock } = this.deps;
    let bytes = 0;
    let recordedAt = performance.now();
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        bytes += chunk.length;
        if (bytes > limit) return done(herald('bodyTooLarge', { limit }));
        if (performance.now() - recordedAt < PROGRESS_EVERY_MS) return done(null, chunk);
        recordedAt = performance.now();
        mnpImportProgress(db, id, { bytes }, clock.now()).then(() => done(null, chunk), done);
      },
    });
    await pipeline(body, counter, createWriteStream(file));
    return bytes;
  }

  /** Loads the received file, indexes it and swaps it in. */
  private async load(id: number, file: string): Promise<void> {
    const { db, clock, log } = this.deps;
    const started = performance.now();
    await mnpImportTableCreate(db, id);
    const operators = new Map<string, number>();
    const errors: { line: number; msg: string }[] = [];
    let layout: PortingLayout | undefined;
    let rows = 0;
    let loaded = 0;
    let errorCount = 0;
    let batch: PortedRow[] = [];
    let recordedAt = performance.now();
    const flush = async (): Promise<void> => {
      if (this.stopping) throw new Error('Interrupted: Herald stopped');
      const owners = [...new Set(batch.map((r) => r.ownerId))].filter((o) => !operators.has(o));
      const added = await mnpOperatorIds(
        db,
        owners.map((ownerId) => ({ ownerId, brand: ownerBrand(ownerId, this.planBrands) })),
      );
      for (const [owner, operatorId] of added) operators.set(owner, operatorId);
      await mnpImportRowsAdd(db, id, batch, operators);
      loaded += batch.length;
      batch = [];
      if (performance.now() - recordedAt < PROGRESS_EVERY_MS) return;
      recordedAt = performance.now();
      await mnpImportProgress(db, id, { rows, loaded, errorCount, errors }, clock.now());
    };
    const refuse = (line: number, msg: string): void => {
      errorCount++;
      if (errors.length < IMPORT_ERRORS_KEPT) errors.push({ line, msg });
    };
    for await (const { line, text } of linesOf(createReadStream(file, { highWaterMark: 1 << 20 }))) {
      if (!layout) {
        const found = PortingLayout.of(text);
        if (typeof found === 'string') throw new Error(`Line ${line}: ${found}`);
        layout = found;
        if (found.headed) continue;
      }
      rows++;
      const row = layout.row(text);
      if (typeof row === 'string') refuse(line, row);
      else batch.push(row);
      if (batch.length >= LOAD_BATCH) await flush();
    }
    if (batch.length > 0) await flush();
    await mnpImportProgress(db, id, { rows, loaded, errorCount, errors }, clock.now());
    if (loaded === 0) throw new Error(rows === 0 ? 'The file has no rows' : 'The file has no valid row');
    // A file mostly refused is not the base (a wrong file, a changed format): the current one stays.
    if (errorCount * 2 > rows) throw new Error(`${errorCount} of ${rows} rows are invalid: the current base is kept`);
    await mnpImportProgress(db, id, { state: 'indexing' }, clock.now());
    const duplicates = await mnpImportIndex(db, id);
    // Looked up before the swap commits: once anyone can read the import done, this process uses the base (marked
    // after, a message sent in between went without it). A swap that fails costs only lookups of no base.
    this.deps.ported.markImported();
    await this.swap(id, duplicates);
    log.info(
      { importId: id, rows, loaded, errorCount, duplicates, seconds: (performance.now() - started) / 1000 },
      'number portability base imported',
    );
  }

  /** Swaps the import's table in; tried again while lookups hold the base past the lock timeout. */
  private async swap(id: number, duplicates: number): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await mnpImportSwap(this.deps.db, id, duplicates, this.deps.clock.now());
      } catch (error) {
        if ((error as { code?: string }).code !== '55P03' || attempt >= SWAP_ATTEMPTS || this.stopping) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
  }

  private async fail(id: number, error: unknown): Promise<void> {
    const failure = error instanceof Error ? error.message : String(error);
    this.deps.log.warn({ importId: id, err: error }, 'number portability import failed');
    try {
      await mnpImportFail(this.deps.db, id, failure.slice(0, 1000), this.deps.clock.now());
    } catch (failError) {
      this.deps.log.error({ importId: id, err: failError }, 'recording a failed number portability import failed');
    }
  }
}
