/**
 * The clock of everything that waits: decision deadlines (the decision loop), a live table's grace
 * periods and bot pacing. Injected, so tests drive time by hand (ManualClock) instead of sleeping,
 * and nothing that plays a game reads the wall clock on its own.
 */
export interface Clock {
  now(): number;
  /** Calls fn once after ms (by this clock); returns a function that cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fn) {
    const t = setTimeout(fn, Math.max(0, ms));
    t.unref?.();
    return () => clearTimeout(t);
  },
};

/** A clock that only moves when told to: advance(ms) fires every timer that falls due, in order. */
export class ManualClock implements Clock {
  private t: number;
  private timers: { at: number; id: number; fn: () => void }[] = [];
  private next = 0;

  constructor(start = 1_800_000_000_000) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimer(ms: number, fn: () => void): () => void {
    const id = this.next++;
    this.timers.push({ at: this.t + Math.max(0, ms), id, fn });
    return () => {
      this.timers = this.timers.filter((x) => x.id !== id);
    };
  }

  /** Moves time forward by ms, firing due timers (earliest first) at their own times. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      let best: { at: number; id: number; fn: () => void } | undefined;
      for (const x of this.timers) if (x.at <= end && (best === undefined || x.at < best.at || (x.at === best.at && x.id < best.id))) best = x;
      if (best === undefined) break;
      const due = best;
      this.timers = this.timers.filter((x) => x.id !== due.id);
      this.t = Math.max(this.t, due.at);
      due.fn();
    }
    this.t = end;
  }

  pending(): number {
    return this.timers.length;
  }
}
