/**
 * The entry window (docs/live.md, "The entry window"): a table may wait up to `entryMs` after it
 * is made, by its own clock, for people to take its open seats before the game starts; nobody
 * decides meanwhile. It closes when that time is up or once every open seat is held; the open
 * seats still empty then are played by their agents for the game.
 */
import type { Clock } from "../../agents/clock.ts";

export class EntryWindow {
  private until: number | null = null;
  private cancel: (() => void) | null = null;

  /** `onClose` runs once, when an open window closes (by time or by close()). */
  constructor(
    private readonly clock: Clock,
    private readonly onClose: () => void,
  ) {}

  /** Opens the window until `until` (server clock), when that is still ahead. */
  open(until: number): void {
    const ms = until - this.clock.now();
    if (ms <= 0) return;
    this.until = until;
    this.cancel = this.clock.setTimer(ms, () => this.close());
  }

  get isOpen(): boolean {
    return this.until !== null;
  }

  /** When the window closes at the latest while it is open; null once the game started. */
  get closesAt(): number | null {
    return this.until;
  }

  close(): void {
    if (this.until === null) return;
    this.until = null;
    this.stop();
    this.onClose();
  }

  /** Stops the timer without closing (the table is shutting down). */
  stop(): void {
    this.cancel?.();
    this.cancel = null;
  }
}
