import smpp from 'smpp';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { originalOf } from '../../src/util/replaced.js';

// The package's own decode: before the patch replaces it, or as the patch keeps it when another test file of this
// process loaded it first (the package is loaded once a process).
const packageDecode = originalOf(smpp.gsmCoder.decode);
const original = packageDecode.bind(smpp.gsmCoder);
await import('../../src/shared/smppGsmCoderPatch.js');

const TABLES = [0x00, 0x01, 0x02, 0x03];

describe("the GSM decoder's plain-text path", () => {
  it("gives the package decoder's text for any bytes in every table", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.constantFrom(...TABLES), (bytes, table) => {
        const value = Buffer.from(bytes);
        expect(smpp.gsmCoder.decode(value, table)).toBe(original(value, table));
      }),
      { numRuns: 5000 },
    );
  });

  it('gives it for texts of the printable ASCII range, escapes and national letters among them', () => {
    // Mostly the bytes that stand for themselves, so that both ways are taken often.
    const text = fc.array(fc.oneof(fc.integer({ min: 0x20, max: 0x7f }), fc.constantFrom(0x0a, 0x0d, 0x1b, 0x00)), {
      maxLength: 160,
    });
    fc.assert(
      fc.property(text, fc.constantFrom(...TABLES), (bytes, table) => {
        const value = Buffer.from(bytes);
        expect(smpp.gsmCoder.decode(value, table)).toBe(original(value, table));
      }),
      { numRuns: 5000 },
    );
  });

  it('reads a receipt as it stands, and the bytes that are not ASCII in GSM 03.38 as the package does', () => {
    const receipt =
      'id:0123456789 sub:001 dlvrd:001 submit date:2611300101 done date:2611300102 stat:DELIVRD err:000 text:Hi';
    expect(smpp.gsmCoder.decode(Buffer.from(receipt, 'latin1'), 0)).toBe(receipt);
    // @ $ _ [ ] and the euro sign (ESC e) are not their ASCII codes.
    const special = Buffer.from([0x00, 0x02, 0x11, 0x1b, 0x3c, 0x1b, 0x3e, 0x1b, 0x65, 0x24, 0x40]);
    expect(smpp.gsmCoder.decode(special, 0)).toBe('@$_[]€¤¡');
    expect(smpp.gsmCoder.decode(special, 0)).toBe(original(special, 0));
  });
});
