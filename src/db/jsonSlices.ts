/**
 * The JSON text of a batch's rows, cut into arrays of at most about `maxBytes` each (a row larger than that alone),
 * in order, each made when the one before has been used: one statement per array, and the rows' JSON.stringify a
 * slice at a time too (14 MB of it at once is 50 ms). PGlite runs a statement on this process's thread and copies
 * its parameters in JavaScript: 14 MB of cascade steps in one statement held the event loop for 250-450 ms, 1.4 MB
 * for about 45.
 */
export function* jsonSlices(rows: readonly unknown[], maxBytes = JSON_SLICE_BYTES): Generator<string> {
  let parts: string[] = [];
  let bytes = 0;
  for (const row of rows) {
    const text = JSON.stringify(row);
    if (parts.length > 0 && bytes + text.length > maxBytes) {
      yield `[${parts.join(',')}]`;
      parts = [];
      bytes = 0;
    }
    parts.push(text);
    bytes += text.length + 1;
  }
  if (parts.length > 0) yield `[${parts.join(',')}]`;
}

/**
 * 512 KiB of rows a statement: about 15 ms of PGlite's (on an idle 2-core machine); an ordinary batch of 1000 short
 * messages (about 300 KB) stays one statement.
 */
export const JSON_SLICE_BYTES = 512 * 1024;

/**
 * Where a batch of `count` items is cut into slices of at most about `maxBytes` of rows each (an item larger than that
 * alone), `bytesOf(i)` estimating item i's: each slice's end (exclusive), in order. A batch of large rows is stored
 * one slice a transaction (sending/sendMessages.ts); a batch within `maxBytes` is one slice.
 */
export function sliceEnds(count: number, bytesOf: (index: number) => number, maxBytes = JSON_SLICE_BYTES): number[] {
  const ends: number[] = [];
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const size = bytesOf(i);
    if (i > 0 && bytes + size > maxBytes) {
      ends.push(i);
      bytes = 0;
    }
    bytes += size;
  }
  if (count > 0) ends.push(count);
  return ends;
}
