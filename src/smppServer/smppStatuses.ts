import { commitUnanswered, isDatabaseUnavailable, isTransactionConflict } from '../db/connectionErrors.js';
import { HeraldError } from '../errors/catalogue.js';

/** The SMPP 3.4 command_status values Herald's SMPP server answers with (SMPP 3.4, 5.1.3). */
export const ESME = {
  ROK: 0x00,
  RINVMSGLEN: 0x01,
  RINVCMDID: 0x03,
  RINVBNDSTS: 0x04,
  RALYBND: 0x05,
  RSYSERR: 0x08,
  RINVSRCADR: 0x0a,
  RINVDSTADR: 0x0b,
  RINVMSGID: 0x0c,
  RBINDFAIL: 0x0d,
  RINVPASWD: 0x0e,
  RINVSYSID: 0x0f,
  RCANCELFAIL: 0x11,
  RMSGQFUL: 0x14,
  RINVSERTYP: 0x15,
  RSUBMITFAIL: 0x45,
  RTHROTTLED: 0x58,
  RINVSCHED: 0x61,
  RINVEXPIRY: 0x62,
  RQUERYFAIL: 0x67,
  /** SMPP 5.0's "invalid data coding scheme": SMPP 3.4 has none of its own. */
  RINVDCS: 0x104,
} as const;

/**
 * message_state of SMPP 3.4 (5.2.28) by Herald's status: ENROUTE (1) until the final status, then DELIVERED (2),
 * UNDELIVERABLE (5) or REJECTED (8). Receipts (deliver_sm) and query_sm_resp say the same.
 */
export const MESSAGE_STATE: Readonly<Record<string, number>> = {
  sending: 1,
  sent: 1,
  delivered: 2,
  undelivered: 5,
  unsent: 8,
};

/**
 * The vendor TLV (SMPP 3.4 5.3.2: 0x1400-0x3FFF are vendor-specific) that carries Herald's error code (4020, 4032,
 * 4220, ...) in a refused submit_sm_resp, as a 4-byte integer: the client learns which refusal of the HTTP API it
 * got (docs/smpp-server.md).
 */
export const HERALD_ERROR_TLV = 0x1400;

/**
 * The one table from Herald's refusals to SMPP statuses (docs/smpp-server.md, "Refusals"). Validation errors are
 * told apart by the field they name; item refusals (funds, stop list, fraud guard) by their Herald code.
 */
export const REFUSALS: readonly { readonly when: string; readonly status: number; readonly test: Refusal }[] = [
  { when: 'sender name (source_addr) not an active SMS name', status: ESME.RINVSRCADR, test: field('senderName') },
  { when: 'destination_addr not a valid number', status: ESME.RINVDSTADR, test: field('destination') },
  { when: 'rate limit (account requests, window per bind)', status: ESME.RTHROTTLED, test: code(4290) },
  { when: 'validity_period out of the SMS ttl bounds', status: ESME.RINVEXPIRY, test: field('ttl') },
  { when: 'schedule_delivery_time not acceptable', status: ESME.RINVSCHED, test: field('localSendTime') },
  { when: 'service_type not a traffic type', status: ESME.RINVSERTYP, test: field('trafficType') },
  { when: 'text empty, too long or not BOM-free', status: ESME.RINVMSGLEN, test: field('content') },
  {
    when: 'funds (4020, 4021, 4022), stop list (4032), consent (4034), geo (4035), flood (4291), channel (4031)',
    status: ESME.RSUBMITFAIL,
    test: () => true,
  },
];

type Refusal = (r: { code: number; field: string | undefined }) => boolean;

function field(name: string): Refusal {
  return (r) => r.field === name;
}

function code(value: number): Refusal {
  return (r) => r.code === value;
}

/** What a submit_sm_resp says of a refusal: its command_status and Herald's code for the vendor TLV. */
export interface SmppRefusal {
  readonly status: number;
  readonly heraldCode: number;
  readonly message: string;
}

/** The SMPP status of a validation error (thrown by the HTTP send path) or of a refused item's code. */
export function refusalOf(refusal: HeraldError | { code: number; msg: string }): SmppRefusal {
  const heraldCode = refusal.code;
  const message = refusal instanceof HeraldError ? refusal.message : refusal.msg;
  const named = refusal instanceof HeraldError ? fieldOf(refusal) : undefined;
  const row = REFUSALS.find((r) => r.test({ code: heraldCode, field: named }))!;
  return { status: row.status, heraldCode, message };
}

/**
 * What a submit_sm_resp says of a failure of Herald's rather than a refusal: `ESME_RMSGQFUL` with 5031 when nothing
 * of the message can have been stored ({@link nothingStored}: the client sends it again, as to a full queue;
 * docs/smpp-server.md); `ESME_RSYSERR` with 5000 for anything else, a COMMIT whose outcome is unknown among them.
 */
export function failureOf(error: unknown): SmppRefusal {
  if (nothingStored(error))
    return { status: ESME.RMSGQFUL, heraldCode: 5031, message: 'service temporarily unavailable' };
  return { status: ESME.RSYSERR, heraldCode: 5000, message: 'internal error' };
}

/**
 * True for a failure of the database that stored nothing: it could not be reached, or it rolled the transaction back
 * for a conflict, and no COMMIT went unanswered (a {@link CommitOutcomeUnknown} anywhere in the error's causes).
 */
export function nothingStored(error: unknown): boolean {
  return !commitUnanswered(error) && (isDatabaseUnavailable(error) || isTransactionConflict(error));
}

/** The message field a validation error is about. */
function fieldOf(error: HeraldError): string | undefined {
  switch (error.errorName) {
    case 'noActiveSenderName':
      return 'senderName';
    case 'invalidMsisdn':
      return 'destination';
    case 'invalidTtl':
      return 'ttl';
    case 'sendTimeTooEarly':
    case 'sendTimeTooLate':
    case 'completionTimeTooEarly':
    case 'completionTimeTooLate':
      return 'localSendTime';
    case 'blankContent':
    case 'invalidContent':
    case 'invalidContentDetail':
      return 'content';
    default: {
      const named = error.params.field;
      return typeof named === 'string' ? named : undefined;
    }
  }
}
