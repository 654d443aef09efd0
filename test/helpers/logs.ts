import { Writable } from 'node:stream';

/** A stream for a logger that hands each line it writes (pino's JSON, one a line) to `onLine`, as written. */
export function logSink(onLine: (line: string) => void): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line) onLine(line);
      done();
    },
  });
}
