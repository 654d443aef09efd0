import smpp from 'smpp';

/**
 * The `smpp` package decodes every receipt's text with its GSM coder, whose getCoder lists all keys of a
 * 128-entry table on each call just to see whether the table is built yet (about 3 µs a receipt, 3% of a busy
 * process). Once built, it returns the same table for an encoding every time, so the answer is kept here.
 * Imported for this effect by the modules that use the package.
 */
const getCoder = smpp.gsmCoder.getCoder;
const built = new Map<number, smpp.GsmCoderTable>();
smpp.gsmCoder.getCoder = function (encoding: number): smpp.GsmCoderTable {
  let coder = built.get(encoding);
  if (coder === undefined) {
    coder = getCoder.call(this, encoding);
    built.set(encoding, coder);
  }
  return coder;
};
