/**
 * SMPP 3.4 command_status values and how Herald treats them: transient errors are tried again (the same or the
 * next connector, within the message's lifetime), anything else is permanent and makes the message unsent with
 * the status as its error code.
 */
export const SMPP_STATUS = {
  ROK: 0x00,
  RINVMSGLEN: 0x01,
  RINVCMDID: 0x03,
  RSYSERR: 0x08,
  RINVSRCADR: 0x0a,
  RINVDSTADR: 0x0b,
  RBINDFAIL: 0x0d,
  RMSGQFUL: 0x14,
  RSUBMITFAIL: 0x45,
  RTHROTTLED: 0x58,
  RX_T_APPN: 0x64,
  RX_P_APPN: 0x65,
  RX_R_APPN: 0x66,
} as const;

const TRANSIENT: ReadonlySet<number> = new Set([
  SMPP_STATUS.RSYSERR,
  SMPP_STATUS.RMSGQFUL,
  SMPP_STATUS.RTHROTTLED,
  SMPP_STATUS.RX_T_APPN,
  SMPP_STATUS.RINVCMDID, // the SMSC does not know submit_sm on this bind yet
  0x04, // ESME_RINVBNDSTS: not bound (a bind race)
  0xfe, // ESME_RDELIVERYFAILURE
]);

export const TRANSIENT_RETRY_MS = 5000;

export function isTransientStatus(status: number): boolean {
  return TRANSIENT.has(status);
}

export function statusName(status: number): string {
  const entry = Object.entries(SMPP_STATUS).find(([, value]) => value === status);
  return entry ? `ESME_${entry[0]}` : `0x${status.toString(16).padStart(8, '0')}`;
}
