/**
 * Where table agents compute their decisions. An asynchronous interface with admission limits:
 * at most `concurrency` jobs run at once, at most `maxQueue` wait, and each job starts on a fresh
 * turn of the event loop (setImmediate), so sockets and timers are served between two agents'
 * decisions. On a server the job it runs hands the decision to the worker pool (TableDeps.decide);
 * without a pool (tests, embedders) the agent computes in this thread.
 */
export class AgentBusy extends Error {
  constructor() {
    super("too many agent decisions waiting");
    this.name = "AgentBusy";
  }
}

export interface AgentRunnerOptions {
  readonly concurrency?: number;
  readonly maxQueue?: number;
}

export class AgentRunner {
  private readonly concurrency: number;
  private readonly maxQueue: number;
  private running = 0;
  private readonly queue: (() => void)[] = [];

  constructor(o: AgentRunnerOptions = {}) {
    this.concurrency = o.concurrency ?? 4;
    this.maxQueue = o.maxQueue ?? 100_000;
  }

  get waiting(): number {
    return this.queue.length;
  }

  run<T>(job: () => T | Promise<T>): Promise<T> {
    if (this.queue.length >= this.maxQueue) return Promise.reject(new AgentBusy());
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.running++;
        setImmediate(() => {
          let p: Promise<T>;
          try {
            p = Promise.resolve(job());
          } catch (e) {
            p = Promise.reject(e);
          }
          p.then(resolve, reject).finally(() => {
            this.running--;
            const next = this.queue.shift();
            if (next) next();
          });
        });
      };
      if (this.running < this.concurrency) start();
      else this.queue.push(start);
    });
  }
}
