/** Counters for GET /metrics, with env-steps/s over a sliding window of whole seconds. */
export class Metrics {
  private readonly started: number;
  private readonly window: number;
  /** [second, envSteps] buckets, oldest first. */
  private buckets: [number, number][] = [];
  requests = 0;
  steps = 0;
  envSteps = 0;
  readonly errors: Record<string, number> = Object.create(null);

  constructor(
    private readonly now: () => number,
    windowSeconds = 10,
  ) {
    this.started = now();
    this.window = windowSeconds;
  }

  recordStep(envs: number, steps = 1): void {
    this.steps += steps;
    this.envSteps += envs;
    const sec = Math.floor(this.now() / 1000);
    const last = this.buckets[this.buckets.length - 1];
    if (last && last[0] === sec) last[1] += envs;
    else {
      this.buckets.push([sec, envs]);
      this.trim(sec);
    }
  }

  recordError(code: string): void {
    this.errors[code] = (this.errors[code] ?? 0) + 1;
  }

  /** Env-steps per second over the last `window` complete-or-current seconds. */
  envStepsPerSecond(): number {
    const nowMs = this.now();
    const sec = Math.floor(nowMs / 1000);
    this.trim(sec);
    let total = 0;
    for (const [, n] of this.buckets) total += n;
    const span = Math.min(this.window, Math.max(1, (nowMs - this.started) / 1000));
    return total / span;
  }

  uptimeSeconds(): number {
    return (this.now() - this.started) / 1000;
  }

  private trim(sec: number): void {
    for (let oldest = this.buckets[0]; oldest !== undefined && oldest[0] <= sec - this.window; oldest = this.buckets[0]) this.buckets.shift();
  }
}
