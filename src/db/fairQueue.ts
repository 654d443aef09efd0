interface Lane<T> {
  readonly key: unknown;
  readonly items: T[];
  /** Virtual time: where the queue stood when the lane last had nothing waiting, plus the costs charged since. */
  used: number;
}

/** An item taken from a {@link FairQueue}: charge what serving it cost once it is served. */
export interface Taken<T> {
  readonly item: T;
  charge(cost: number): void;
}

/**
 * A queue served fairly across keys (accounts) by what each costs, not by arrival: start-time fair queuing. Each
 * key waits in a lane of its own, first in first out; the next item comes from the lane that has used the least
 * (the costs charged for its items), and a lane that had nothing waiting starts level with the lane last served,
 * so that a key cannot bank turns while idle. A key that sends one cheap item at a time is therefore served next
 * whenever it has something waiting, however many costly ones another key keeps queued: it waits for the item in
 * service, not for the other key's backlog.
 */
export class FairQueue<T> {
  private readonly lanes = new Map<unknown, Lane<T>>();
  /** The virtual time of the queue: what the lane served last had used when its item was taken. */
  private now = 0;
  private count = 0;

  get size(): number {
    return this.count;
  }

  push(key: unknown, item: T): void {
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { key, items: [], used: this.now };
      this.lanes.set(key, lane);
    }
    lane.items.push(item);
    this.count++;
  }

  /** The first item of the lane that has used the least (the oldest lane on a tie), or undefined when empty. */
  shift(): Taken<T> | undefined {
    let next: Lane<T> | undefined;
    for (const lane of this.lanes.values()) {
      if (lane.items.length > 0 && (next === undefined || lane.used < next.used)) next = lane;
    }
    if (!next) return undefined;
    const lane = next;
    const item = lane.items.shift()!;
    this.count--;
    this.now = lane.used;
    // The lane stays, with what it used, until its item's cost is charged: an item pushed meanwhile queues behind it.
    let charged = false;
    return {
      item,
      charge: (cost) => {
        if (charged) return;
        charged = true;
        lane.used += cost;
        if (lane.items.length === 0 && this.lanes.get(lane.key) === lane) this.lanes.delete(lane.key);
      },
    };
  }
}
