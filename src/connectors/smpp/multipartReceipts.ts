import type { Clock, ClockTimer } from '../../util/clock.js';
import type { CarrierReceipt } from '../connector.js';

/**
 * How long the other parts of a multi-part message may go without a receipt of their own after one part was
 * reported delivered, before they are taken as delivered with it. SMSCs that report each part do so within seconds
 * of each other (the parts reach the handset together); 30 s leaves them room.
 */
export const MULTIPART_RECEIPT_WAIT_MS = 30_000;
/** Multi-part messages remembered at most (the oldest are forgotten first): about 10 MB. */
export const MULTIPART_REMEMBERED = 100_000;

interface Group {
  readonly ids: readonly string[];
  readonly reported: Set<string>;
  timer: ClockTimer | undefined;
}

/**
 * Some SMSCs send one receipt for a whole multi-part message (on the id of one of its parts), others one per part.
 * The rule: when a part is reported delivered and another part of the same message has no receipt of its own
 * within {@link MULTIPART_RECEIPT_WAIT_MS}, that part is taken as delivered with the same time. A failed part
 * needs no such help (the first failed part makes the message undelivered). The parts are remembered in memory by
 * the connector that submitted them: a restart in between leaves such a message `sent` until its receipts or its
 * lifetime end.
 */
export class MultipartReceipts {
  private readonly groups = new Map<string, Group>();

  constructor(
    private readonly clock: Clock,
    private readonly emit: (receipts: CarrierReceipt[]) => void,
  ) {}

  /** Remembers the carrier ids of one multi-part message's parts. */
  remember(ids: readonly string[]): void {
    if (ids.length < 2) return;
    const group: Group = { ids: [...ids], reported: new Set(), timer: undefined };
    for (const id of ids) this.groups.set(id, group);
    while (this.groups.size > MULTIPART_REMEMBERED * 2) this.forget(this.groups.values().next().value!);
  }

  /** Notes a final receipt; a delivered part starts the wait for its siblings. */
  received(receipt: CarrierReceipt): void {
    const group = this.groups.get(receipt.carrierId);
    if (!group) return;
    group.reported.add(receipt.carrierId);
    if (group.reported.size === group.ids.length) {
      this.forget(group);
      return;
    }
    if (receipt.state !== 'delivered' || group.timer) return;
    group.timer = this.clock.setTimer(MULTIPART_RECEIPT_WAIT_MS, () => {
      group.timer = undefined;
      const missing = group.ids.filter((id) => !group.reported.has(id));
      this.forget(group);
      this.emit(missing.map((carrierId) => Object.assign({}, receipt, { carrierId })));
    });
  }

  /** Cancels every wait (the connector is stopping). */
  clear(): void {
    for (const group of this.groups.values()) group.timer?.cancel();
    this.groups.clear();
  }

  private forget(group: Group): void {
    group.timer?.cancel();
    for (const id of group.ids) this.groups.delete(id);
  }
}
