import smpp from 'smpp';
import { replacing } from '../util/replaced.js';

/**
 * The `smpp` package decodes every receipt's text with its GSM coder, whose getCoder lists all keys of a
 * 128-entry table on each call just to see whether the table is built yet (about 3 µs a receipt, 3% of a busy
 * process). Once built, it returns the same table for an encoding every time, so the answer is kept here.
 * Imported for this effect by the modules that use the package.
 */
const built = new Map<number, smpp.GsmCoderTable>();
smpp.gsmCoder.getCoder = replacing(
  smpp.gsmCoder.getCoder,
  (getCoder) =>
    function (this: unknown, encoding: number): smpp.GsmCoderTable {
      let coder = built.get(encoding);
      if (coder === undefined) {
        coder = getCoder.call(this, encoding);
        built.set(encoding, coder);
      }
      return coder;
    },
);

/**
 * And its decode builds a regular expression and a string one character at a time on each call (about 2 µs of
 * a receipt's 5.5 to decode in a micro-benchmark). A receipt's text is plain ASCII letters, digits and punctuation,
 * which every table of GSM 03.38 maps to themselves: such bytes are the text as they stand. Any other byte (an
 * escape, a national letter, `@`, `$`, `_`, brackets) takes the package's own way.
 * test/shared/smppGsmCoderPatch.test.ts holds the two to the same answers over every table.
 */
/** Per table (by encoding), which bytes it decodes to the character of the same code. */
const plain = new Map<number, Uint8Array>();
function plainBytes(encoding: number): Uint8Array {
  let bytes = plain.get(encoding);
  if (bytes === undefined) {
    const chars = smpp.gsmCoder.getCoder(encoding).chars;
    bytes = new Uint8Array(256);
    // ESC (0x1b) starts an extension character; its own table entry is not the text.
    for (let b = 0; b < chars.length; b++) if (b !== 0x1b && chars.charCodeAt(b) === b) bytes[b] = 1;
    plain.set(encoding, bytes);
  }
  return bytes;
}
smpp.gsmCoder.decode = replacing(
  smpp.gsmCoder.decode,
  (decode) =>
    function (this: unknown, value: Buffer | string, encoding: number): string {
      if (Buffer.isBuffer(value)) {
        const bytes = plainBytes(encoding);
        let i = 0;
        while (i < value.length && bytes[value[i]!] === 1) i++;
        if (i === value.length) return value.toString('latin1');
      }
      return decode.call(this, value, encoding);
    },
);
