import { describe, expect, it } from 'vitest';
import { chunksOf, destinationsOf, entryOf, placeholdersOf, sentPer } from '../../web/app/dispatches.js';
import { parseCsv } from '../../web/shared/parseCsv.js';

// What the Dispatches page does with a destinations file in the browser, before anything is sent.
describe('destinations files of the Dispatches page', () => {
  it('reads CSV as spreadsheets save it: quotes, line breaks in quotes, CRLF, BOM, semicolons, blank lines', () => {
    expect(parseCsv('\uFEFFphone,name\r\n79161230011,"Anna, ""A."""\r\n\r\n79161230012,"two\nlines"').rows).toEqual([
      ['phone', 'name'],
      ['79161230011', 'Anna, "A."'],
      ['79161230012', 'two\nlines'],
    ]);
    const semicolons = parseCsv('phone;name;"a;b"\n79161230011;Anna;x,y\n');
    expect(semicolons.separator).toBe(';');
    expect(semicolons.rows).toEqual([
      ['phone', 'name', 'a;b'],
      ['79161230011', 'Anna', 'x,y'],
    ]);
    expect(parseCsv('a,b\n1,\n').rows).toEqual([
      ['a', 'b'],
      ['1', ''],
    ]);
    expect(parseCsv('').rows).toEqual([]);
  });

  it('reads placeholders as the API does: letters, digits and _, each once', () => {
    expect(placeholdersOf('Hi {name}, order {order_1} {name} {not one} {Имя}')).toEqual(['name', 'order_1', 'Имя']);
  });

  it('finds the problems of each row: no destination, no column or value for a placeholder, extra cells', () => {
    const file = destinationsOf(parseCsv('phone,name\n79161230011, Anna \n,Boris\n79161230012\n79161230013,Vera,x\n'), [
      'name',
      'order',
    ]);
    expect(file.columns).toEqual(['name']);
    expect(file.problems).toEqual(["The text's {order} has no column in the header row."]);
    expect(file.rows.map((r) => [r.row, r.destination, r.substitutions, r.problems])).toEqual([
      [2, '79161230011', { name: 'Anna' }, ['No column for {order}']],
      [3, '', { name: 'Boris' }, ['No destination', 'No column for {order}']],
      [4, '79161230012', {}, ['No value for {name}', 'No column for {order}']],
      [5, '79161230013', { name: 'Vera' }, ['3 cells: the header has 2 columns', 'No column for {order}']],
    ]);
    const good = destinationsOf(parseCsv('phone,name\n79161230011,Anna\n'), ['name']);
    expect(good.problems).toEqual([]);
    expect(good.rows.map(entryOf)).toEqual([{ destination: '79161230011', substitutions: { name: 'Anna' } }]);
    expect(destinationsOf(parseCsv('phone\n79161230011\n'), []).rows.map(entryOf)).toEqual([
      { destination: '79161230011' },
    ]);
  });

  it('flags a row whose cell for a placeholder is empty or blank (issue 34: "С наступающим, !" went out)', () => {
    const file = destinationsOf(parseCsv('phone;name\n79161230011;\n79161230012;  \n79161230013;Анна\n'), ['name']);
    expect(file.rows.map((r) => [r.row, r.problems])).toEqual([
      [2, ['No value for {name}']],
      [3, ['No value for {name}']],
      [4, []],
    ]);
  });

  it('names what is wrong with a file as a whole', () => {
    expect(destinationsOf(parseCsv(''), []).problems).toEqual(['The file is empty.']);
    expect(destinationsOf(parseCsv('phone,name\n'), ['name']).problems).toEqual([
      'The file has a header row and no destinations.',
    ]);
    expect(destinationsOf(parseCsv('79161230011,Anna\n'), []).problems).toEqual([
      'The file has a header row and no destinations.',
      'The first row looks like a destination: the first row names the columns.',
    ]);
    expect(destinationsOf(parseCsv('phone,name,name\n1,a,b\n'), ['name']).rows[0]!.substitutions).toEqual({
      name: 'b',
    });
  });

  it('adds in calls of up to 1000', () => {
    const rows = Array.from({ length: 2001 }, (_, i) => i);
    expect(chunksOf(rows, 1000).map((c) => c.length)).toEqual([1000, 1000, 1]);
    expect(chunksOf([], 1000)).toEqual([]);
  });

  it('counts messages sent per minute, empty minutes included, and per hour beyond 3 hours', () => {
    const at = (minute: number, second = 0) => new Date(Date.UTC(2026, 2, 10, 9, minute, second)).toISOString();
    const minutes = sentPer([at(0, 5), at(0, 59), null, at(2, 1)]);
    expect(minutes.unit).toBe('minute');
    expect(minutes.points.map((p) => p.value)).toEqual([2, 0, 1]);
    const hours = sentPer([at(0), new Date(Date.UTC(2026, 2, 10, 13, 30)).toISOString()]);
    expect(hours.unit).toBe('hour');
    expect(hours.points.map((p) => p.value)).toEqual([1, 0, 0, 0, 1]);
    expect(sentPer([null]).points).toEqual([]);
  });
});
