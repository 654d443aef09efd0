/** One part of a long inbound SMS: its reference (8-bit or 16-bit UDH, or SAR), the part count and its number. */
export interface MoPart {
  readonly reference: number;
  readonly total: number;
  readonly sequence: number;
}

/** The concatenation of an inbound part: a UDH with IEI 0x00 (8-bit reference) or 0x08 (16-bit), or SAR TLVs. */
export function moPartOf(udh: readonly Buffer[] | undefined, sar: Record<string, unknown>): MoPart | undefined {
  for (const h of udh ?? []) {
    if (h[0] === 0x00 && h.length >= 5) return { reference: h[2]!, total: h[3]!, sequence: h[4]! };
    if (h[0] === 0x08 && h.length >= 6) return { reference: (h[2]! << 8) | h[3]!, total: h[4]!, sequence: h[5]! };
  }
  if (typeof sar.sar_msg_ref_num === 'number' && typeof sar.sar_segment_seqnum === 'number') {
    return {
      reference: sar.sar_msg_ref_num,
      total: Number(sar.sar_total_segments ?? 1),
      sequence: sar.sar_segment_seqnum,
    };
  }
  return undefined;
}
