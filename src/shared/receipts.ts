/*
 * A carrier's receipt: what connectors produce and messages/ records. Below both, so that the owner of messages
 * needs nothing of connectors/ (which reads the queue's figures from messages/).
 */

/** A carrier's report on one submitted part. */
export interface CarrierReceipt {
  readonly connectorId: string;
  readonly carrierId: string;
  readonly state: ReceiptState;
  readonly at: Date;
  readonly errorCode: number | null;
}
export type ReceiptState = 'delivered' | 'undelivered' | 'unsent' | 'read';
