import { type Clock, type ClockTimer } from '../../util/clock.js';
import type { Throttle } from '../throttle.js';

/**
 * The first pause after ESME_RTHROTTLED or ESME_RMSGQFUL, doubling with each further refusal of a PDU sent after
 * the pause before it (Kannel pauses a fixed `throttling-err-time`, 10 s in its examples): 500 ms answers a short
 * burst at once, and 4 s at most keeps the end of a long throttling within 4 s of Herald noticing it.
 */
export const THROTTLE_PAUSE_MIN_MS = 500;
export const THROTTLE_PAUSE_MAX_MS = 4000;
/**
 * Each pause halves the connector's rate, down to a sixteenth of its `mps`; every second without a refusal doubles
 * it again: back to full speed within 4 s of the SMSC taking everything again.
 */
export const THROTTLE_RATE_FLOOR_SHARE = 1 / 16;
export const THROTTLE_RECOVERY_STEP_MS = 1000;
/**
 * A refusal pauses the connector when refusals are at least half of the last answers (or too few answers came to
 * tell): an SMSC over its capacity refuses most of what it is sent. A refusal among mostly accepted PDUs (an SMSC
 * refusing a share of submits, whatever the rate) only sends that PDU again: a pause each time would idle the
 * connector for most of the time the SMSC would take its PDUs.
 */
export const THROTTLE_RECENT_ANSWERS = 20;
export const THROTTLE_PAUSE_SHARE = 0.5;

/**
 * A connector's answer to an SMSC that is busy: the whole connector (every session) stops sending for a pause that
 * grows while the refusals go on, then starts again at a reduced rate that recovers step by step. Pauses run on the
 * connector's clock, so a test moves through them.
 */
export class SmscThrottling {
  private pausedUntil = 0;
  /** Answers that asked to slow down, since the start (the operator's view and metrics). */
  private refusals = 0;
  /** Counts pauses: a PDU sent during pause number n is refused as part of the burst that started pause n + 1. */
  private pauses = 0;
  private steps = 0;
  private rateChangedAt = 0;
  private readonly waiters = new Set<{ timer: ClockTimer; resolve: (ok: boolean) => void }>();
  /**
   * After a pause one PDU goes alone, a probe: the others wait for its answer, so that an SMSC still busy refuses
   * one PDU per pause, not a whole window of them.
   */
  private probe: 'none' | 'needed' | 'in flight' = 'none';
  private readonly probeWaiters = new Set<() => void>();
  /** The last answers, true for a refusal, oldest first. */
  private readonly recent: boolean[] = [];

  constructor(
    private readonly throttle: Throttle,
    private readonly clock: Clock,
  ) {}

  /** For tests and the operator: the pause left, the refusals in a row and the rate now. */
  snapshot(): { pausedForMs: number; steps: number; rate: number } {
    return {
      pausedForMs: Math.max(0, this.pausedUntil - this.clock.nowMs()),
      steps: this.steps,
      rate: this.throttle.currentRate,
    };
  }

  /** For the operator: every refusal since the start, and when the pause ends (null when not paused). */
  shown(): { refusals: number; pausedUntil: Date | null } {
    return { refusals: this.refusals, pausedUntil: this.pauseLeftMs > 0 ? new Date(this.pausedUntil) : null };
  }

  get pauseLeftMs(): number {
    return Math.max(0, this.pausedUntil - this.clock.nowMs());
  }

  now(): number {
    return this.clock.nowMs();
  }

  /** A mark for a PDU about to be sent, to tell later which pause its refusal belongs to. */
  sending(): number {
    return this.pauses;
  }

  /**
   * The SMSC refused, as throttled, a PDU `sent` at this mark: pause, longer if the last pause did not help, unless
   * most recent answers were acceptances (the PDU is then only sent again).
   */
  refused(sent: number): void {
    this.refusals++;
    this.answered(true);
    // Refusals of PDUs sent before the current pause started are the same burst: one step for all of them.
    if (sent < this.pauses) return;
    const refusals = this.recent.filter(Boolean).length;
    const mostlyAccepted =
      this.recent.length >= THROTTLE_RECENT_ANSWERS / 2 && refusals < this.recent.length * THROTTLE_PAUSE_SHARE;
    if (mostlyAccepted && this.probe === 'none') return;
    this.pauses++;
    this.probe = 'needed';
    const now = this.clock.nowMs();
    const pause = Math.min(THROTTLE_PAUSE_MIN_MS * 2 ** this.steps, THROTTLE_PAUSE_MAX_MS);
    this.steps++;
    this.pausedUntil = now + pause;
    const floor = Math.max(1, Math.ceil(this.throttle.mps * THROTTLE_RATE_FLOOR_SHARE));
    this.throttle.setRate(Math.max(floor, Math.floor(this.throttle.currentRate / 2)));
    this.rateChangedAt = now;
  }

  /** The SMSC took a PDU: the refusals in a row end, and the rate recovers a step per second. */
  accepted(): void {
    this.answered(false);
    const now = this.clock.nowMs();
    if (now < this.pausedUntil) return;
    this.probe = 'none';
    this.steps = 0;
    if (this.throttle.currentRate < this.throttle.mps && now - this.rateChangedAt >= THROTTLE_RECOVERY_STEP_MS) {
      this.throttle.setRate(this.throttle.currentRate * 2);
      this.rateChangedAt = now;
    }
  }

  /**
   * Resolves once this PDU may go: `probe` when it goes alone after a pause (the caller reports its end through
   * {@link probeEnded}), `go` when sending is open; false if the pause would end after `deadline`, or on
   * {@link cancel}.
   */
  async waitTurn(deadline: number): Promise<'go' | 'probe' | false> {
    for (;;) {
      const now = this.clock.nowMs();
      if (now < this.pausedUntil) {
        if (this.pausedUntil > deadline) return false;
        if (!(await this.waitFor(this.pausedUntil - now))) return false;
        continue;
      }
      if (this.probe === 'none') return 'go';
      if (this.probe === 'needed') {
        this.probe = 'in flight';
        return 'probe';
      }
      // The probe's answer comes within the response timeout; the deadline bounds the wait all the same.
      if (now >= deadline) return false;
      const answered = await new Promise<boolean>((resolve) => {
        const waiter = (): void => {
          timer.cancel();
          this.probeWaiters.delete(waiter);
          resolve(true);
        };
        const timer = this.clock.setTimer(deadline - now, () => {
          this.probeWaiters.delete(waiter);
          resolve(false);
        });
        this.probeWaiters.add(waiter);
      });
      if (!answered && this.clock.nowMs() >= deadline) return false;
    }
  }

  /** The probe was answered (or failed): the next pause, or open sending, follows from what it was told. */
  probeEnded(): void {
    if (this.probe === 'in flight') this.probe = 'none';
    for (const waiter of [...this.probeWaiters]) waiter();
  }

  private answered(refused: boolean): void {
    this.recent.push(refused);
    if (this.recent.length > THROTTLE_RECENT_ANSWERS) this.recent.shift();
  }

  private waitFor(ms: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const waiter = {
        resolve,
        timer: this.clock.setTimer(ms, () => {
          this.waiters.delete(waiter);
          resolve(true);
        }),
      };
      this.waiters.add(waiter);
    });
  }

  /** Ends every wait (the connector is stopping). */
  cancel(): void {
    for (const waiter of this.waiters) {
      waiter.timer.cancel();
      waiter.resolve(false);
    }
    this.waiters.clear();
    for (const waiter of [...this.probeWaiters]) waiter();
  }
}
