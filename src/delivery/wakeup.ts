import type { Clock } from '../util/clock.js';
import { Wake } from '../shared/loop.js';

/**
 * The announcements of stored messages, which wake the submitter: the API notifies after it stores messages, and so
 * does the process's listener when another process announces work (db/wake.ts).
 */
export class Wakeup extends Wake {
  /** Notifies so far: part of a process's activity (shared/jobs.ts). */
  notifies = 0;

  override notify(): void {
    this.notifies++;
    super.notify();
  }
}

/**
 * The Wakeup of a process without a submitter (role api): a notify also wakes the workers of other processes, by a
 * notification sent after the commit that stored the work (the caller notifies after its commit). One statement
 * at a time: the notifies that come while one is under way make one more after it, not one each, so a burst of
 * sends costs the database a few notifications.
 */
export class AnnouncingWakeup extends Wakeup {
  private sending = false;
  private again = false;

  constructor(
    clock: Clock,
    private readonly announce: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {
    super(clock);
  }

  override notify(): void {
    super.notify();
    if (this.sending) {
      this.again = true;
      return;
    }
    this.sending = true;
    void this.send();
  }

  private async send(): Promise<void> {
    do {
      this.again = false;
      await this.announce().catch(this.onError);
    } while (this.again);
    this.sending = false;
  }
}
