/**
 * GSM 03.38 default alphabet and its extension table (3GPP TS 23.038). Characters of the extension table are
 * sent as ESC (0x1B) followed by their code and so take two septets.
 */
const BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\x1bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const EXTENSION: Readonly<Record<string, number>> = {
  '\f': 0x0a,
  '^': 0x14,
  '{': 0x28,
  '}': 0x29,
  '\\': 0x2f,
  '[': 0x3c,
  '~': 0x3d,
  ']': 0x3e,
  '|': 0x40,
  '€': 0x65,
};
export const GSM_ESCAPE = 0x1b;

// Septet cost per UTF-16 code unit: 1 basic, 2 extension, 0 not representable. ESC itself is not text.
const COST = new Uint8Array(0x10000);
const BASIC_CODE = new Int16Array(0x10000).fill(-1);
for (let i = 0; i < BASIC.length; i++) {
  if (i === GSM_ESCAPE) continue;
  COST[BASIC.charCodeAt(i)] = 1;
  BASIC_CODE[BASIC.charCodeAt(i)] = i;
}
for (const [char, code] of Object.entries(EXTENSION)) {
  COST[char.charCodeAt(0)] = 2;
  BASIC_CODE[char.charCodeAt(0)] = code;
}

/** Septets needed for `text` in the GSM 7-bit alphabet, or -1 when a character is not in it. */
export function gsmSeptetCount(text: string): number {
  let septets = 0;
  for (let i = 0; i < text.length; i++) {
    const cost = COST[text.charCodeAt(i)]!;
    if (cost === 0) return -1;
    septets += cost;
  }
  return septets;
}

/** Septet cost of one UTF-16 code unit (1 or 2), or 0 when not representable. */
export function gsmCharCost(codeUnit: number): number {
  return COST[codeUnit]!;
}

/** Encodes GSM text as one septet per byte (unpacked, data_coding 0 as SMPP carries it); ESC pairs for extensions. */
export function gsmEncode(text: string): Buffer {
  const septets = gsmSeptetCount(text);
  if (septets < 0) throw new Error(`not a GSM 03.38 text: ${JSON.stringify(text.slice(0, 40))}`);
  const out = Buffer.allocUnsafe(septets);
  let j = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (COST[unit] === 2) out[j++] = GSM_ESCAPE;
    out[j++] = BASIC_CODE[unit]!;
  }
  return out;
}

const EXTENSION_BY_CODE = new Map(Object.entries(EXTENSION).map(([char, code]) => [code, char]));

/** Decodes unpacked GSM septets back to text. */
export function gsmDecode(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i++) {
    const septet = bytes[i]!;
    if (septet === GSM_ESCAPE && i + 1 < bytes.length) {
      text += EXTENSION_BY_CODE.get(bytes[++i]!) ?? ' ';
    } else {
      text += BASIC[septet] ?? '?';
    }
  }
  return text;
}
