/**
 * Worker threads that play SPRT groups in parallel (one per core by default). The match runner
 * inside each worker keeps several games in flight, which is where ONNX decisions batch; the pool
 * only decides which groups run where.
 */
import { Worker } from "node:worker_threads";
import { disableOnnxTelemetry } from "../../agents/onnx/policy-model.ts";
import type { SprtMatchup } from "../../agents/arena/sprt-run.ts";
import type { AgentTiming, Fixture, GameResult } from "../../agents/arena/tournament.ts";

export interface PoolInit {
  readonly modelRoot?: string;
}
/** Which match a group belongs to. */
export interface PoolMatch {
  readonly game: string;
  readonly config: unknown;
  readonly matchup: SprtMatchup;
}
/** A round robin's fixture to play (the arena's --workers). */
export interface PoolFixture {
  readonly game: string;
  readonly config: { readonly seats: number } & Record<string, unknown>;
  readonly agents: readonly string[];
  readonly seed: number;
  readonly fill?: string;
  readonly fixture: Fixture;
}
export type PoolRequest =
  { readonly id: number; readonly match: PoolMatch; readonly group: number } | { readonly id: number; readonly roundRobin: PoolFixture };
export type PoolReply =
  | { readonly id: number; readonly scores: number[] }
  | { readonly id: number; readonly result: GameResult; readonly timing: AgentTiming[] }
  | { readonly id: number; readonly error: string }
  | { readonly ready: true };

interface Slot {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  inFlight: number;
}

/**
 * The worker entry, a module file beside this one: worker.ts in the source tree (run by tsx), and
 * in a bundle of the arena (this code inlined into `arena[.<tag>].mjs`, scripts/run-bundled.mjs)
 * the `arena-worker[.<tag>].mjs` bundled beside it.
 */
export function poolWorkerEntry(here: string = import.meta.url): URL {
  if (here.endsWith(".ts")) return new URL("./worker.ts", here);
  if (here.endsWith(".js")) return new URL("./worker.js", here);
  const tag = /\/[^/.]+(\.[^/]+)?\.mjs$/.exec(here)?.[1] ?? "";
  return new URL(`./arena-worker${tag}.mjs`, here);
}

export class GroupPool {
  private readonly slots: Slot[];
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (s: any) => void; reject: (e: Error) => void; slot: Slot }>();
  /** Requests sent and not yet answered, abandoned ones included (close waits for them). */
  private outstanding = 0;

  constructor(init: PoolInit, workers: number) {
    const entry = poolWorkerEntry();
    disableOnnxTelemetry(); // before the workers load models (they cannot set it themselves)
    this.slots = Array.from({ length: workers }, () => {
      // Under tsx the worker needs tsx's loader registered before it can import TypeScript.
      const boot = entry.pathname.endsWith(".ts")
        ? new Worker(
            `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`,
            { eval: true, workerData: init },
          )
        : new Worker(entry, { workerData: init });
      let ready!: () => void;
      let failed!: (e: Error) => void;
      const slot: Slot = {
        worker: boot,
        ready: new Promise<void>((res, rej) => {
          ready = res;
          failed = rej;
        }),
        inFlight: 0,
      };
      boot.on("message", (m: PoolReply) => {
        if ("ready" in m) return ready();
        this.outstanding--;
        const w = this.waiting.get(m.id);
        if (!w) return;
        this.waiting.delete(m.id);
        w.slot.inFlight--;
        if ("error" in m) w.reject(new Error(m.error));
        else if ("scores" in m) w.resolve(m.scores);
        else w.resolve({ result: m.result, timing: m.timing });
      });
      boot.on("error", (e) => {
        failed(e);
        for (const [g, w] of this.waiting) {
          if (w.slot !== slot) continue;
          this.waiting.delete(g);
          w.reject(e);
        }
      });
      return slot;
    });
  }

  get size(): number {
    return this.slots.length;
  }

  /** Resolves once every worker has loaded (a broken worker rejects). */
  async ready(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.ready));
  }

  /** Plays group g of a match on the least busy worker. */
  play(match: PoolMatch, group: number): Promise<number[]> {
    const slot = this.slots.reduce((a, b) => (b.inFlight < a.inFlight ? b : a));
    slot.inFlight++;
    this.outstanding++;
    const id = this.nextId++;
    return new Promise<number[]>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, slot });
      slot.worker.postMessage({ id, match, group } satisfies PoolRequest);
    });
  }

  /** Plays a round robin's fixture on the least busy worker. */
  playFixture(roundRobin: PoolFixture): Promise<{ result: GameResult; timing: AgentTiming[] }> {
    const slot = this.slots.reduce((a, b) => (b.inFlight < a.inFlight ? b : a));
    slot.inFlight++;
    this.outstanding++;
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject, slot });
      slot.worker.postMessage({ id, roundRobin } satisfies PoolRequest);
    });
  }

  /**
   * Forgets requests still in flight (a decided test does not wait for them); their replies are
   * dropped, and each worker's count drops at once so the next test sees idle workers.
   */
  abandon(): void {
    for (const w of this.waiting.values()) w.slot.inFlight--;
    this.waiting.clear();
  }

  /**
   * Ends the workers once every request sent has been answered (abandoned ones included, for at
   * most 30 s): terminating a worker while onnxruntime runs a model in it aborts the whole process
   * with a native fatal error, after the results were printed but before the exit code is set.
   */
  async close(): Promise<void> {
    const until = Date.now() + 30_000;
    while (this.outstanding > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }
}
