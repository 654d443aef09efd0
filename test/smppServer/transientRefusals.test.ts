import pino from 'pino';
import smpp from 'smpp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { principalOfToken, tokenFindLive } from '../../src/accounts/index.js';
import { CommitOutcomeUnknown, isDatabaseUnavailable } from '../../src/db/connectionErrors.js';
import { messageRowBytes, ONE_TRANSACTION_BYTES } from '../../src/sending/index.js';
import { LoopFailures } from '../../src/shared/loop.js';
import { ESME, failureOf, HERALD_ERROR_TLV } from '../../src/smppServer/smppStatuses.js';
import { type SubmitResult, SubmitBatches } from '../../src/smppServer/submitBatches.js';
import { ENGINES } from '../helpers/engines.js';
import { keyIdOf, secretOf, startTestHerald, type TestAccount, type TestHerald } from '../helpers/testHerald.js';
import { messagesTrigger, triggerFunctionSql } from '../helpers/triggers.js';
import { SmppTestClient } from './smppClient.js';
import { logSink } from '../helpers/logs.js';

smpp.addTLV('herald_error_code', { id: HERALD_ERROR_TLV, type: smpp.types.tlv.int32 });

const DELIVERED = '79161234561';

/** A trigger body that runs `statement` for the rows whose content holds `marker`. */
const forRows = (marker: string, statement: string): string =>
  `IF NEW.content::text LIKE '%${marker}%' THEN ${statement}; END IF;`;
/** A trigger body that raises `code` for the rows whose content holds `marker`. */
const raiseFor = (marker: string, code: string): string =>
  forRows(marker, `RAISE EXCEPTION 'the test' USING ERRCODE = '${code}'`);
/** A trigger body that ends its own connection (PostgreSQL) for the rows whose content holds `marker`. */
const terminateFor = (marker: string): string => forRows(marker, 'PERFORM pg_terminate_backend(pg_backend_pid())');

/**
 * A submit_sm that failed for the database is told "send again" (ESME_RMSGQFUL) only when nothing of it can have been
 * stored; when that is not known (COMMIT unanswered), ESME_RSYSERR. The failures are made by triggers on `messages`
 * made before Herald starts: `refuse_stores` before each insert, `fail_commits` deferred to COMMIT.
 */
describe.each(ENGINES)('SMPP submits that fail for the database on %s', (engine) => {
  let t: TestHerald;
  let port: number;
  let a: TestAccount;
  const clients: SmppTestClient[] = [];
  const logs: { level: number; msg: string; failures?: number; failed?: string }[] = [];

  beforeAll(async () => {
    t = await startTestHerald(engine, {
      env: { HERALD_SMPP_PORT: '0' },
      delivery: { delayMs: 20 },
      prepare: async (db) => {
        await messagesTrigger('refuse_stores', 'BEFORE INSERT')(db);
        await messagesTrigger('fail_commits', 'AFTER INSERT', '', { deferred: true })(db);
      },
      log: pino(
        { level: 'info' },
        logSink((line) => logs.push(JSON.parse(line) as (typeof logs)[0])),
      ),
    });
    port = t.herald.smppServer!.port;
    a = await t.createAccount({ senderNames: [['SMS', 'Herald']] });
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    await t.testDb.db.query(triggerFunctionSql('refuse_stores'));
    await t.testDb.db.query(triggerFunctionSql('fail_commits'));
  });

  const bound = async (): Promise<SmppTestClient> => {
    const { client, answer } = await SmppTestClient.bound(port, keyIdOf(a.traffic), secretOf(a.traffic));
    clients.push(client);
    expect(answer.command_status).toBe(ESME.ROK);
    return client;
  };
  const stored = async (marker: string): Promise<number> => {
    const [row] = await t.testDb.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM messages WHERE account_id = $1 AND content::text LIKE $2`,
      [a.id, `%${marker}%`],
    );
    return row!.n;
  };
  const submit = (client: SmppTestClient, text: string) =>
    client.submit({ source_addr: 'Herald', destination_addr: DELIVERED, short_message: text });

  it.each([
    ['the database cannot be reached', '57P03'],
    ['a deadlock rolled the transaction back', '40P01'],
  ])('answers ESME_RMSGQFUL (5031) when %s, stores nothing, and takes the message sent again', async (_, code) => {
    const marker = `again-${code}`;
    await t.testDb.db.query(triggerFunctionSql('refuse_stores', raiseFor(marker, code)));
    const client = await bound();
    const refused = await submit(client, `${marker} text`);
    expect(refused.command_status).toBe(ESME.RMSGQFUL);
    expect(refused.herald_error_code).toBe(5031);
    expect(await stored(marker)).toBe(0);

    await t.testDb.db.query(triggerFunctionSql('refuse_stores'));
    const taken = await submit(client, `${marker} text`);
    expect(taken.command_status).toBe(ESME.ROK);
    expect(await stored(marker)).toBe(1);
  });

  it('logs a database outage once however many submit_sm it refuses, its end at the next batch stored', async () => {
    const marker = 'outage';
    await t.testDb.db.query(triggerFunctionSql('refuse_stores', raiseFor(marker, '57P03')));
    const client = await bound();
    const about = (msg: string) => logs.filter((l) => l.msg.startsWith(msg));
    const before = logs.length;
    // One at a time: each its own batch, each refused "send again".
    for (let i = 0; i < 5; i++) expect((await submit(client, `${marker} ${i}`)).command_status).toBe(ESME.RMSGQFUL);
    const outage = about('SMPP batch not stored').filter((l) => logs.indexOf(l) >= before);
    expect(outage).toHaveLength(1);
    expect(outage[0]).toMatchObject({ level: 40 });
    expect(outage[0]!.msg).toContain('logged once until it is back');

    await t.testDb.db.query(triggerFunctionSql('refuse_stores'));
    expect((await submit(client, `${marker} again`)).command_status).toBe(ESME.ROK);
    const back = about('database back').filter((l) => logs.indexOf(l) >= before);
    expect(back).toHaveLength(1);
    expect(back[0]).toMatchObject({
      level: 30,
      failures: 5,
      failed: 'SMPP batch not stored: database unavailable or conflict',
    });
  });

  it("answers ESME_RSYSERR (5000) when COMMIT's outcome is unknown; the HTTP send still answers 503 5031", async () => {
    // 57P01 (admin_shutdown) raised at COMMIT stands for a server that went away while it ran.
    await t.testDb.db.query(triggerFunctionSql('fail_commits', raiseFor('at-commit', '57P01')));
    const client = await bound();
    const before = logs.length;
    for (let i = 0; i < 2; i++) {
      const answer = await submit(client, 'at-commit text');
      expect(answer.command_status).toBe(ESME.RSYSERR);
      expect(answer.herald_error_code).toBe(5000);
    }
    // Each logged as an error: the message may have been stored, never one warning for an outage.
    const failed = logs.slice(before).filter((l) => l.msg === 'SMPP batch failed');
    expect(failed.map((l) => l.level)).toEqual([50, 50]);

    const http = await t.call('POST', '/api/v1/message', {
      token: a.traffic,
      body: [{ channelType: 'SMS', senderName: 'Herald', destination: DELIVERED, content: 'at-commit text' }],
    });
    expect(http.status).toBe(503);
    expect(http.body.error.code).toBe(5031);
  });

  // A real connection's end: PostgreSQL only (PGlite has no connection to lose).
  it.runIf(engine === 'postgres')('answers ESME_RMSGQFUL when the connection is lost during the insert', async () => {
    await t.testDb.db.query(triggerFunctionSql('refuse_stores', terminateFor('lost-before')));
    const client = await bound();
    expect((await submit(client, 'lost-before text')).command_status).toBe(ESME.RMSGQFUL);
    expect(await stored('lost-before')).toBe(0);
  });

  it.runIf(engine === 'postgres')('answers ESME_RSYSERR when the connection is lost during COMMIT', async () => {
    await t.testDb.db.query(triggerFunctionSql('fail_commits', terminateFor('lost-at-commit')));
    const client = await bound();
    const answer = await submit(client, 'lost-at-commit text');
    expect(answer.command_status).toBe(ESME.RSYSERR);
    await t.testDb.db.query(triggerFunctionSql('fail_commits'));
    expect((await submit(client, 'after the loss')).command_status).toBe(ESME.ROK);
  });

  it('stores a batch in one transaction: what is refused with "send again" was not stored', async () => {
    // 20 messages of 229 parts (706 KB of rows) submitted in one turn: batches of 14 (within 512 KiB) and 6, the last
    // message failing. One batch of 20 stored in slices would have committed the first 19 and refused them all.
    const marker = 'cut-batch';
    await t.testDb.db.query(triggerFunctionSql('refuse_stores', raiseFor(`${marker} 19`, '57P03')));
    const token = await tokenFindLive(t.herald.ctx.db, keyIdOf(a.traffic), t.herald.ctx.clock.now());
    const batches = new SubmitBatches(
      t.herald.ctx,
      new LoopFailures(t.herald.ctx.log, t.herald.ctx.clock).step('SMPP batch not stored'),
    );
    const texts = Array.from({ length: 20 }, (_, i) => `${marker} ${i} `.padEnd(35_000, 'a'));
    expect(texts.length * messageRowBytes({ content: texts[0] })).toBeGreaterThan(ONE_TRANSACTION_BYTES);
    const results: SubmitResult[] = await Promise.all(
      texts.map((content) =>
        batches.submit(
          principalOfToken(token!),
          { channelType: 'SMS', senderName: 'Herald', destination: DELIVERED, content },
          null,
        ),
      ),
    );

    const refused = results.flatMap((r, i) => ('error' in r ? [i] : []));
    expect(refused).toEqual([14, 15, 16, 17, 18, 19]);
    for (const i of refused) {
      const { error } = results[i] as { error: unknown };
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(failureOf(error).status).toBe(ESME.RMSGQFUL);
      expect(await stored(`${marker} ${i} `)).toBe(0);
    }
    for (const [i, r] of results.entries()) {
      if ('item' in r) {
        expect(r.item).toMatchObject({ code: 201 });
        expect(await stored(`${marker} ${i} `)).toBe(1);
      }
    }
  });
});

describe('the SMPP answer of a failure of the database', () => {
  it('says "send again" only when no COMMIT went unanswered, wherever that is among the causes', () => {
    const unreachable = Object.assign(new Error('the server is starting'), { code: '57P03' });
    expect(failureOf(unreachable)).toMatchObject({ status: ESME.RMSGQFUL, heraldCode: 5031 });
    expect(failureOf(Object.assign(new Error('deadlock'), { code: '40P01' })).status).toBe(ESME.RMSGQFUL);
    const lostCommit = new CommitOutcomeUnknown(Object.assign(new Error('shut down'), { code: '57P01' }));
    expect(failureOf(lostCommit)).toMatchObject({ status: ESME.RSYSERR, heraldCode: 5000 });
    expect(failureOf(new Error('the batch failed', { cause: lostCommit })).status).toBe(ESME.RSYSERR);
    expect(failureOf(new Error('a bug')).status).toBe(ESME.RSYSERR);
  });
});
