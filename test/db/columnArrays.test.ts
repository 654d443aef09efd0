import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ArrayColumn, arrayLiteral, columnValues, unnestSelect } from '../../src/db/columnArrays.js';
import { ENGINES, openTestDb, type TestDb } from '../helpers/engines.js';

interface Row {
  readonly id: number;
  readonly name?: string | null;
  readonly at?: string | Date;
  readonly doc?: unknown;
  readonly words?: readonly string[];
  readonly flag?: boolean;
  readonly amount?: number;
}

const COLUMNS: readonly ArrayColumn<Row>[] = [
  { name: 'id', type: 'bigint' },
  { name: 'name', type: 'text' },
  { name: 'at', type: 'timestamptz' },
  { name: 'doc', type: 'jsonb', as: 'json', value: (r) => (r.doc === undefined ? undefined : JSON.stringify(r.doc)) },
  { name: 'words', type: 'text[]', as: 'text', value: (r) => r.words && arrayLiteral(r.words) },
  { name: 'flag', type: 'boolean' },
  { name: 'amount', type: 'numeric' },
];

// What an array's text must quote or escape: its delimiters, quotes, backslashes, the word NULL, blanks, other scripts.
const AWKWARD = ['a,b', '{x}', 'say "hi"', 'back\\slash', 'NULL', 'null', ' padded ', '', 'тег', '\\"', 'a\nb', 'a b'];

describe.each(ENGINES)('a batch as one typed array a column (%s)', (engine) => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await openTestDb(engine);
  });
  afterAll(async () => testDb?.drop());

  const roundTrip = (rows: readonly Row[]) =>
    testDb.db.query<{
      id: string;
      name: string | null;
      at: Date | null;
      doc: unknown;
      words: string[] | null;
      flag: boolean | null;
      amount: string | null;
    }>(`SELECT * FROM (${unnestSelect(COLUMNS, 2, 'r')}) r WHERE $1::int = 1 ORDER BY id`, [
      1,
      ...columnValues(COLUMNS, rows),
    ]);

  it('reads each row back whole, in its types, undefined and null as NULL', async () => {
    const rows: Row[] = [
      { id: 1, name: 'plain', at: '2026-12-05T06:11:01.123Z', doc: [{ status: 'sent', at: 'x' }], words: ['a', 'b'] },
      { id: 2, name: null, doc: { text: 'say "hi" \\ ok', n: 1.5, nested: { deep: [null, true] } }, words: AWKWARD },
      { id: 3, doc: null, words: [] },
      { id: 4 },
    ];
    const read = await roundTrip(rows);
    expect(read.map((r) => [Number(r.id), r.name, r.at?.toISOString() ?? null, r.doc, r.words])).toEqual([
      [1, 'plain', '2026-12-05T06:11:01.123Z', [{ status: 'sent', at: 'x' }], ['a', 'b']],
      [2, null, null, { text: 'say "hi" \\ ok', n: 1.5, nested: { deep: [null, true] } }, AWKWARD],
      // A JSON null sent as text is the document null, not SQL NULL.
      [3, null, null, null, []],
      [4, null, null, null, null],
    ]);
  });

  it('reads every text as it was (quoted where the array would read it otherwise), times, flags, numbers', async () => {
    const at = new Date('2026-12-05T23:59:59.999Z');
    const rows: Row[] = AWKWARD.map((name, i) => ({ id: i, name, at, flag: i % 2 === 0, amount: i - 2.25 }));
    const read = await roundTrip(rows);
    expect(read.map((r) => r.name)).toEqual(AWKWARD);
    expect(read.every((r) => r.at?.getTime() === at.getTime())).toBe(true);
    expect(read.map((r) => [r.flag, Number(r.amount)])).toEqual(AWKWARD.map((_, i) => [i % 2 === 0, i - 2.25]));
  });

  it('refuses a nested value not sent as text', () => {
    const doc: ArrayColumn<Row> = { name: 'doc', type: 'jsonb' };
    const rows: Row[] = [{ id: 1, doc: { a: 1 } }];
    expect(() => columnValues([doc], rows)).toThrow(TypeError);
  });

  it('reads a JSON column of one row, or of no documents, as NULL where it has none', async () => {
    expect((await roundTrip([{ id: 1 }])).map((r) => [Number(r.id), r.doc])).toEqual([[1, null]]);
    const read = await roundTrip([{ id: 1 }, { id: 2 }, { id: 3, doc: 'a\u001eb' }]);
    expect(read.map((r) => r.doc)).toEqual([null, null, 'a\u001eb']);
  });

  it("refuses in a JSON column what is not JSON.stringify's text", () => {
    const doc: ArrayColumn<{ doc: unknown }> = { name: 'doc', type: 'jsonb', as: 'json' };
    for (const bad of [{ a: 1 }, 5, '', 'a\u001eb'])
      expect(() => columnValues([doc], [{ doc: bad }])).toThrow(TypeError);
  });

  it('sends a column with no value as NULL, its rows read as they were; the first column always whole', async () => {
    const rows: Row[] = [{ id: 7 }, { id: 8, name: null, doc: undefined }, { id: 9 }];
    // Every column but the key is NULL in every row: sent as NULL, not as arrays of NULLs for the server to parse.
    expect(columnValues(COLUMNS, rows)).toEqual(['{7,8,9}', null, null, null, null, null, null]);
    const read = await roundTrip(rows);
    expect(read.map((r) => [Number(r.id), r.name, r.at, r.doc, r.words, r.flag, r.amount])).toEqual([
      [7, null, null, null, null, null, null],
      [8, null, null, null, null, null, null],
      [9, null, null, null, null, null, null],
    ]);
    // One value in a column sends it whole.
    const oneFlag: Row[] = [{ id: 1 }, { id: 2, flag: false }];
    expect(columnValues(COLUMNS, oneFlag)[5]).toBe('{NULL,f}');
    // A first column of NULLs still gives the relation its rows.
    const keyless: ArrayColumn<Row>[] = [COLUMNS[1]!, COLUMNS[0]!];
    const keys: Row[] = [{ id: 1 }, { id: 2 }];
    const values = columnValues(keyless, keys);
    expect(values).toEqual(['{NULL,NULL}', '{1,2}']);
    const keylessRead = await testDb.db.query<{ name: string | null; id: string }>(
      unnestSelect(keyless, 1, 'r'),
      values,
    );
    expect(keylessRead.map((r) => [r.name, Number(r.id)])).toEqual([
      [null, 1],
      [null, 2],
    ]);
  });

  it('reads an empty batch as no rows', async () => {
    expect(await roundTrip([])).toEqual([]);
  });

  it("names its parameters from the first it is given, in the columns' order", () => {
    expect(unnestSelect(COLUMNS.slice(0, 2), 3, 'x')).toBe(
      'SELECT x.id, x.name FROM unnest($3::bigint[], $4::text[]) AS x(id, name)',
    );
    expect(unnestSelect(COLUMNS.slice(3, 5), 1, 'x')).toBe(
      'SELECT x.doc::jsonb AS doc, x.words::text[] AS words ' +
        "FROM unnest(string_to_array($1::text, chr(30), ''), $2::text[]) AS x(doc, words)",
    );
  });
});
