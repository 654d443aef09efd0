// Type declarations for the parts of the npm `smpp` package (0.5) that Herald uses; the package ships none.
declare module 'smpp' {
  import type { EventEmitter } from 'node:events';
  import type { Server as NetServer, Socket } from 'node:net';

  export interface PduFields {
    [field: string]: unknown;
  }

  export interface GsmCoderTable {
    readonly chars: string;
  }

  /** The package's GSM 03.38 coder, used by its message filters for data_coding 0-3. */
  export const gsmCoder: {
    getCoder(encoding: number): GsmCoderTable;
    /** Text of GSM 03.38 septets (one a byte) in the table of `encoding` (0 default, 1-3 national shifts). */
    decode(value: Buffer | string, encoding: number): string;
  };

  export class PDU {
    /** A PDU to send, or one decoded from its bytes. */
    constructor(command: string, options?: PduFields);
    constructor(buffer: Buffer);
    command: string;
    command_id: number;
    command_status: number;
    sequence_number: number;
    [field: string]: unknown;
    isResponse(): boolean;
    response(options?: PduFields): PDU;
    toBuffer(): Buffer;
    /** Decodes the whole PDU's octets into this object: the package's own way in. */
    fromBuffer(buffer: Buffer): void;
    static maxLength: number;
    /** The length octets of the next PDU on the stream, false until they are there (throws past maxLength). */
    static commandLength(stream: NodeJS.ReadableStream): number | false;
    /** The PDU of `length` octets whose length octets were just read from the stream, false until all is there. */
    static fromStream(stream: NodeJS.ReadableStream, length: number): PDU | false;
  }

  /** An optional parameter (TLV) as the package knows it: its tag name, value reader, and what it does on decoding. */
  export interface TlvDefinition {
    readonly id: number;
    readonly tag: string;
    readonly type: { read(buffer: Buffer, offset: number, length: number): unknown };
    readonly filter?: unknown;
    readonly multiple?: boolean;
  }
  /** The TLVs the package knows, by their id. */
  export const tlvsById: Record<number, TlvDefinition | undefined>;

  export class Session extends EventEmitter {
    socket: Socket;
    server?: Server;
    send(pdu: PDU, responseCallback?: (pdu: PDU) => void, sendCallback?: (pdu: PDU) => void): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
    pause(): void;
    resume(): void;
  }

  export class Server extends NetServer {
    sessions: Session[];
  }

  export function createServer(options: Record<string, unknown>, listener?: (session: Session) => void): Server;
  export function connect(
    options: { host: string; port: number; [key: string]: unknown },
    listener?: () => void,
  ): Session;

  export const ESME_ROK: number;
  export const ESME_RSYSERR: number;
  export const ESME_RINVSRCADR: number;
  export const ESME_RINVDSTADR: number;
  export const ESME_RBINDFAIL: number;
  export const ESME_RINVPASWD: number;
  export const ESME_RMSGQFUL: number;
  export const ESME_RSUBMITFAIL: number;
  export const ESME_RTHROTTLED: number;
  export const ESME_RX_T_APPN: number;
  export const ESME_RINVCMDID: number;
  export const errors: Record<string, number>;

  /** The package's text encodings (data_coding 0/1 GSM 03.38, 3 Latin-1, 8 UCS-2). */
  export const encodings: Record<'ASCII' | 'LATIN1' | 'UCS2', { match(value: string): boolean }>;
  /** The package's field filters (time: validity_period, schedule_delivery_time). */
  export const filters: Record<
    'time' | 'message',
    { encode(value: unknown): unknown; decode(this: unknown, value: unknown): unknown }
  >;
  /** TLV value types, for addTLV. */
  export const types: { tlv: Record<'int8' | 'int16' | 'int32' | 'cstring' | 'string' | 'buffer', unknown> };
  /** Teaches the package a TLV (a vendor-specific one): its tag name, id and value type. */
  export function addTLV(tag: string, options: { id: number; type: unknown }): void;
}
