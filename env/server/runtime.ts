import { Worker } from "node:worker_threads";
import { disableOnnxTelemetry } from "../../agents/onnx/policy-model.ts";
import { restoreWorkerYoungGeneration, sessionWorkerLimits } from "./heap.ts";
import { unlinkSync } from "node:fs";
import { FastPathServer } from "./fast-path.ts";
import type { DecideJob, Job } from "./jobs.ts";
import type { FromWorker, HostReply, HostRequest, ToWorker } from "./host-protocol.ts";
import { JobTimeout, StepTimeout, UnsendableRequest, WorkerLost, type RuntimeOptions, type Slot, type Task } from "./runtime-types.ts";
import { SessionHost } from "./session-host.ts";
import type { WorkerInit } from "./session-module.ts";
import { must } from "../../engine/core/index.ts";

export { JobTimeout, StepTimeout, WorkerLost, type FastPathHooks, type Rebuildable, type RuntimeOptions } from "./runtime-types.ts";

/**
 * The worker entry, a module file beside this one in every layout: session-worker.ts in the source
 * tree (run by tsx), session-worker.js in the compiled npm package, and in a bundle (this code
 * inlined into `<entry>[.<tag>].mjs`) the `session-worker[.<tag>].mjs` bundled beside it.
 */
export function workerEntry(here: string = import.meta.url): URL {
  if (here.endsWith(".ts")) return new URL("./session-worker.ts", here);
  if (here.endsWith(".js")) return new URL("./session-worker.js", here);
  const tag = /\/[^/.]+(\.[^/]+)?\.mjs$/.exec(here)?.[1] ?? "";
  return new URL(`./session-worker${tag}.mjs`, here);
}
const WORKER_URL = workerEntry();

/**
 * Where session work runs: a pool of worker threads (`workers` >= 1), each session pinned to one
 * worker so its state never crosses threads; the HTTP event loop only validates, routes and
 * forwards `{op, session, body}`, then answers with the worker's reply bytes.
 *
 * The budget. A worker runs one request at a time, and a timer starts when the request is handed
 * to it. A request still running when its budget ends is answered with a StepTimeout at once (the
 * caller replies 503 `step_timeout` and quarantines its session); the worker is terminated
 * (termination interrupts any JavaScript, however tight its loop) and a fresh one takes its place.
 * Every other session the old worker held is rebuilt there, exactly: sessions are deterministic,
 * so the creation body plus the resets and steps applied since (the session's log, kept on the
 * main thread) reproduce the state, and the digest of the replayed last reply must equal the one
 * the client received, or the session is reported lost instead of being served wrong. Requests
 * that were queued for that worker run after the rebuild, with their own full budget.
 *
 * `workers: 0` runs sessions on the main thread (tests with in-process fixtures, embedding):
 * nothing can interrupt synchronous work there, so only asynchronous work is held to the budget.
 */
export class SessionRuntime {
  private readonly slots: Slot[];
  private readonly host: SessionHost | null;
  private seq = 0;
  private closed = false;
  private affinityNext = 0;
  private readonly inThreadFast: FastPathServer | null = null;
  private readonly watchdog: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly o: RuntimeOptions) {
    this.host = o.workers === 0 ? new SessionHost(o.setup) : null;
    if (o.workers > 0) restoreWorkerYoungGeneration();
    const fast = o.fastPath ?? null;
    if (fast && this.host) {
      const host = this.host;
      this.inThreadFast = new FastPathServer(
        {
          handle: (req) => host.handle(req),
          keyed: (key) => host.keyed(key),
          event: fast.event,
          busy: () => undefined,
          stepped: (envs) => fast.stepped(1, envs),
        },
        { path: socketPath(fast.prefix, 0), maxFrame: fast.maxFrame, maxEnvsPerSession: fast.maxEnvsPerSession },
      );
    }
    if (fast && o.workers > 0) {
      // A fast-path request never passes through the main thread: a timer here reads what the
      // worker marked in its shared buffer and replaces a worker whose request ran past the budget.
      this.watchdog = setInterval(
        () => {
          this.checkFastBudgets();
          this.collectFastSteps();
        },
        Math.max(10, Math.min(250, Math.floor(o.stepTimeoutMs / 4))),
      );
      this.watchdog.unref();
    }
    this.slots = Array.from({ length: Math.max(1, o.workers) }, (_, index) => ({
      index,
      worker: null,
      ready: false,
      generation: 0,
      queue: [],
      current: null,
      envs: 0,
      failedStarts: 0,
      fastPath: false,
      fastState: new SharedArrayBuffer(32),
      fastCounted: [0, 0],
    }));
  }

  /** Starts the in-thread fast-path server (workers: 0); workers start theirs themselves. */
  async listenFastPath(): Promise<boolean> {
    if (!this.inThreadFast) return false;
    try {
      await this.inThreadFast.listen();
      this.firstSlot.fastPath = true;
    } catch (e) {
      this.o.log(`fast path unavailable: ${e instanceof Error ? e.message : String(e)}`);
    }
    return this.firstSlot.fastPath;
  }

  /** The fast-path socket of a worker slot, or null when the fast path is off. */
  fastSocket(slot: number): string | null {
    const fast = this.o.fastPath ?? null;
    return fast ? socketPath(fast.prefix, slot) : null;
  }

  /** Slot 0, which every runtime has (there is at least one slot). */
  private get firstSlot(): Slot {
    return must(this.slots[0], "runtime: worker slot 0");
  }

  /** Whether the slot's worker is serving its fast-path socket (a worker starts it before it takes requests). */
  fastPathReady(slot: number): boolean {
    return this.slots[slot]?.fastPath ?? false;
  }

  /** Passes the fast-path steps the workers counted since the last call on to the owner (/metrics). */
  collectFastSteps(): void {
    const fast = this.o.fastPath;
    if (!fast || this.host) return;
    for (const s of this.slots) {
      const counts = new Float64Array(s.fastState, 16, 2);
      const [stepsNow = 0, envStepsNow = 0] = counts;
      const steps = stepsNow - s.fastCounted[0];
      const envSteps = envStepsNow - s.fastCounted[1];
      if (steps === 0) continue;
      s.fastCounted[0] += steps;
      s.fastCounted[1] += envSteps;
      fast.stepped(steps, envSteps);
    }
  }

  private checkFastBudgets(): void {
    const fast = this.o.fastPath;
    if (!fast || this.closed) return;
    for (const s of this.slots) {
      if (!s.worker || !s.ready) continue;
      const handle = Atomics.load(new Int32Array(s.fastState, 0, 1), 0);
      if (handle === 0) continue;
      const since = new Float64Array(s.fastState, 8, 1)[0] ?? 0;
      if (Date.now() - since <= this.o.stepTimeoutMs) continue;
      this.o.log(`session worker ${s.index}: a fast-path request ran past ${this.o.stepTimeoutMs} ms; replacing the worker`);
      Atomics.store(new Int32Array(s.fastState, 0, 1), 0, 0);
      fast.expired(handle);
      const cur = s.current;
      if (cur) {
        clearTimeout(cur.timer);
        s.current = null;
        cur.task.reject(new WorkerLost("its worker was replaced after a fast-path request ran past the step budget"));
      }
      this.replace(s, null);
    }
  }

  get workers(): number {
    return this.o.workers;
  }

  /** The worker slot a new session of `numEnvs` goes to: the one holding the fewest envs. */
  place(numEnvs: number): number {
    let best = this.firstSlot;
    for (const s of this.slots) if (s.envs < best.envs) best = s;
    best.envs += numEnvs;
    return best.index;
  }

  /** Gives back a placement (the session was refused or deleted). */
  unplace(slot: number, numEnvs: number): void {
    const s = this.slots[slot];
    if (s) s.envs = Math.max(0, s.envs - numEnvs);
  }

  /** Runs a session request on its worker under the step budget. Rejects with StepTimeout / WorkerLost. */
  call(slot: number, req: HostRequest, budgetMs = this.o.stepTimeoutMs): Promise<HostReply> {
    return this.enqueue(slot, req, budgetMs, () => new StepTimeout(budgetMs));
  }

  /**
   * Runs a job (env/server/jobs.ts) on the pool under a budget: the API for work that is not a
   * session request (live tables' agent decisions). `affinity` keeps related jobs on one worker
   * (any string; without one, jobs go round-robin). Resolves with the job's result; rejects with
   * JobTimeout past the budget (that worker is replaced; sessions on it are rebuilt), WorkerLost,
   * or an Error carrying the job's own failure message.
   */
  async runJob(job: Job, options: { budgetMs: number; affinity?: string }): Promise<unknown> {
    const slot = options.affinity === undefined ? this.affinityNext++ % this.slots.length : hashSlot(options.affinity, this.slots.length);
    const reply = await this.enqueue(slot, { op: "job", session: "", body: job, format: "msgpack" }, options.budgetMs, () => new JobTimeout(options.budgetMs));
    if (reply.error) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
    return reply.value;
  }

  /**
   * Runs one agent decision (a live table's DecideJob) as a job, and resolves with the index of
   * the chosen legal decision; a worker that answers anything but an integer is an error.
   */
  async runDecision(job: DecideJob, options: { budgetMs: number; affinity?: string }): Promise<number> {
    const index = await this.runJob(job, options);
    if (typeof index !== "number" || !Number.isInteger(index)) throw new Error(`the decide job answered ${String(index)}, not a decision index`);
    return index;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.watchdog) clearInterval(this.watchdog);
    this.inThreadFast?.close();
    for (const s of this.slots) {
      const path = this.fastSocket(s.index);
      if (path === null) continue;
      try {
        unlinkSync(path);
      } catch {
        // never created, or already removed
      }
    }
    await Promise.all(
      this.slots.map(async (s) => {
        if (s.current) clearTimeout(s.current.timer);
        const w = s.worker;
        s.worker = null;
        s.generation++;
        for (const t of s.queue.splice(0)) t.reject(new WorkerLost("the server shut down"));
        if (s.current) s.current.task.reject(new WorkerLost("the server shut down"));
        s.current = null;
        if (w) await w.terminate();
      }),
    );
  }

  private enqueue(slot: number, req: HostRequest, budgetMs: number, timeout: () => Error): Promise<HostReply> {
    if (this.closed) return Promise.reject(new WorkerLost("the server shut down"));
    if (this.host) return this.inThread(req, budgetMs, timeout);
    const s = this.slots[slot];
    if (!s) return Promise.reject(new Error(`no worker slot ${slot}`));
    return new Promise<HostReply>((resolve, reject) => {
      s.queue.push({ req, budgetMs, resolve, reject, timeout });
      this.pump(s);
    });
  }

  private inThread(req: HostRequest, budgetMs: number, timeout: () => Error): Promise<HostReply> {
    if (!this.host) throw new Error("runtime: a request for the in-thread host, but the runtime runs workers");
    const work = this.host.handle(req);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(timeout()), budgetMs);
    });
    return Promise.race([work, expired]).finally(() => clearTimeout(timer));
  }

  private pump(s: Slot): void {
    if (s.current || this.closed) return;
    if (!s.worker) {
      if (s.queue.length > 0) this.start(s);
      return;
    }
    if (!s.ready) return;
    const task = s.queue.shift();
    if (!task) return;
    const seq = ++this.seq;
    try {
      s.worker.postMessage({ seq, req: task.req } satisfies ToWorker);
    } catch (e) {
      task.reject(new UnsendableRequest(e)); // this may run in a worker's event handler: the request fails, not the process
      return this.pump(s);
    }
    s.current = { task, seq, timer: setTimeout(() => this.expire(s, seq), task.budgetMs) };
  }

  private start(s: Slot): void {
    const generation = ++s.generation;
    const fast = this.o.fastPath ?? null;
    const init: WorkerInit = {
      sessionModule: this.o.sessionModule,
      modelDir: this.o.modelDir,
      fastPath: fast
        ? { path: socketPath(fast.prefix, s.index), maxFrame: fast.maxFrame, maxEnvsPerSession: fast.maxEnvsPerSession, state: s.fastState }
        : null,
    };
    disableOnnxTelemetry(); // before the worker loads models (it cannot set it itself)
    const options = { workerData: init, resourceLimits: sessionWorkerLimits(this.o.workerHeapMb) };
    // Under tsx (the dev runner) a worker must register tsx's loader before it can import TypeScript.
    const worker = WORKER_URL.pathname.endsWith(".ts")
      ? new Worker(
          `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((m) => { m.register(); return import(${JSON.stringify(WORKER_URL.href)}); });`,
          {
            ...options,
            eval: true,
          },
        )
      : new Worker(WORKER_URL, options);
    s.worker = worker;
    s.ready = false;
    worker.unref();
    worker.on("message", (m: FromWorker) => {
      if (s.generation !== generation) return;
      switch (m.kind) {
        case "fast":
          fast?.event(m.event);
          return;
        case "fastUnavailable":
          this.o.log(`session worker ${s.index}: fast path unavailable: ${m.message}`);
          return;
        case "ready":
          s.ready = true;
          s.fastPath = m.fastPath;
          s.failedStarts = 0;
          this.pump(s);
          return;
        case "reply":
          this.replied(s, m.seq, m.reply);
      }
    });
    const died = (why: string) => {
      if (s.generation !== generation || this.closed) return;
      this.o.log(`session worker ${s.index} stopped: ${why}`);
      const cur = s.current;
      if (cur) {
        clearTimeout(cur.timer);
        s.current = null;
        cur.task.reject(new WorkerLost(why));
      }
      if (!s.ready && ++s.failedStarts >= 3) {
        for (const t of s.queue.splice(0)) t.reject(new WorkerLost(`the worker could not start: ${why}`));
      }
      this.replace(s, cur?.task.req.session ?? null);
    };
    worker.on("error", (e) => died(e.message));
    worker.on("exit", (code) => died(`exit code ${code}`));
  }

  /** The worker's reply to request `seq`: settles it if it is still the one running, then hands the worker the next. */
  private replied(s: Slot, seq: number, reply: HostReply): void {
    const cur = s.current;
    if (!cur || cur.seq !== seq) return;
    clearTimeout(cur.timer);
    s.current = null;
    cur.task.resolve(reply);
    this.pump(s);
  }

  private expire(s: Slot, seq: number): void {
    const cur = s.current;
    if (!cur || cur.seq !== seq) return;
    s.current = null;
    cur.task.reject(cur.task.timeout());
    this.o.log(`session worker ${s.index}: ${cur.task.req.op} of ${cur.task.req.session || "a job"} ran past ${cur.task.budgetMs} ms; replacing the worker`);
    this.replace(s, cur.task.req.session || null);
  }

  /** Terminates the slot's worker (if any), starts a fresh one and queues the rebuild of its other sessions first. */
  private replace(s: Slot, culprit: string | null): void {
    const old = s.worker;
    s.worker = null;
    s.ready = false;
    s.fastPath = false;
    s.generation++;
    if (old) void old.terminate().catch(() => undefined);
    if (this.closed) return;
    const rebuilds: Task[] = [];
    for (const session of this.o.sessionsOn(s.index)) {
      if (session.id === culprit) continue;
      const replayed = session.log.length;
      rebuilds.push({
        req: { op: "rebuild", session: session.id, body: { create: session.create, log: session.log }, format: "msgpack" },
        // Replaying costs about what the original requests did: one budget per replayed request.
        budgetMs: this.o.stepTimeoutMs * (replayed + 1),
        resolve: (r) => {
          if (r.error) this.o.lost(session.id, "session_lost", `the session could not be rebuilt after its worker was replaced: ${r.error.message}`);
          else if ((r.digest ?? null) !== session.digest)
            this.o.lost(session.id, "session_lost", "the rebuilt session did not reproduce its last reply; it was dropped rather than served wrong");
        },
        reject: (e) => this.o.lost(session.id, "session_lost", `the session could not be rebuilt after its worker was replaced: ${e.message}`),
        timeout: () => new StepTimeout(this.o.stepTimeoutMs * (replayed + 1)),
      });
    }
    s.queue.unshift(...rebuilds);
    if (s.queue.length > 0 && (s.failedStarts < 3 || s.ready)) this.start(s);
  }
}

function hashSlot(key: string, n: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % n;
}

/** The fast-path socket of worker slot `slot` under `prefix`. */
function socketPath(prefix: string, slot: number): string {
  return `${prefix}.w${slot}`;
}
