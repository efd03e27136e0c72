import { randomBytes } from "node:crypto";
import { TableStore } from "../live/store.ts";
import type { Job } from "./jobs.ts";
import { Metrics } from "./metrics.ts";
import type { ResolvedOptions } from "./options.ts";
import { SessionRuntime, type RuntimeOptions } from "./runtime.ts";
import type { AttachBody } from "./host-protocol.ts";
import { SessionStore, type FastBinding, type SessionEntry } from "./session-store.ts";

/** What the app exposes to its owner (scripts, tests) besides the routes: `app.cardgym`. */
export interface CardgymState {
  readonly options: ResolvedOptions;
  readonly sessions: SessionStore;
  readonly metrics: Metrics;
  /** Live tables (null when the server has no data dir). */
  readonly tables: TableStore | null;
  /** Runs the idle-session sweep now (it also runs on a timer); returns how many expired. */
  sweep(): number;
  /**
   * Runs a job on the session worker pool under a budget (env/server/jobs.ts: e.g. one agent
   * decision of a live table). See SessionRuntime.runJob.
   */
  runJob(job: Job, options: { budgetMs: number; affinity?: string }): Promise<unknown>;
}

/**
 * The server's shared parts, which every plugin of the app receives: the session store, the
 * worker pool, live tables, metrics and whether the server is shutting down. Built in dependency
 * order: the worker pool before the tables whose agents decide on it.
 */
export class ServerCore {
  readonly metrics: Metrics;
  readonly sessions: SessionStore;
  readonly runtime: SessionRuntime;
  readonly tables: TableStore | null;
  /** Set when the app starts closing: new requests get 503 and replies ask to close the connection. */
  closing = false;
  /** Sessions by fast-path watchdog handle (what a worker marks while it runs a fast-path request). */
  private readonly fastHandles = new Map<number, SessionEntry>();
  private nextFastHandle = 1;
  private readonly sweeper: ReturnType<typeof setInterval>;

  constructor(readonly o: ResolvedOptions) {
    this.metrics = new Metrics(o.now);
    this.sessions = new SessionStore(o, o.now);
    this.runtime = new SessionRuntime({
      workers: o.workers,
      stepTimeoutMs: o.stepTimeoutMs,
      setup: { registry: o.registry, adapters: o.adapters, createAgent: o.createAgent, modelDir: o.modelDir },
      sessionModule: o.sessionModule,
      modelDir: o.modelDir,
      workerHeapMb: o.workerHeapMb,
      log: o.log,
      sessionsOn: (slot) =>
        this.sessions.onSlot(slot).filter((entry) => {
          // Fast-path steps are not logged on this thread, so such a session cannot be rebuilt.
          if (entry.fast) this.quarantine(entry, "session_lost", "its worker was replaced, and a session stepped over the fast path is not rebuilt");
          return !entry.fast;
        }),
      lost: (id, code, message) => {
        const entry = this.sessions.find(id);
        if (entry && !entry.quarantine) this.quarantine(entry, code, message);
      },
      fastPath: o.fastPath === null ? null : this.fastPathHooks(o.fastPath),
    });
    this.tables = o.dataDir === null ? null : this.openTables(o.dataDir);
    this.sweeper = setInterval(() => this.sweep(), o.sweepIntervalMs);
    this.sweeper.unref();
  }

  /** What `app.cardgym` shows. */
  get state(): CardgymState {
    return {
      options: this.o,
      sessions: this.sessions,
      metrics: this.metrics,
      tables: this.tables,
      sweep: () => this.sweep(),
      runJob: (job, budget) => this.runtime.runJob(job, budget),
    };
  }

  /** Expires idle sessions now; returns how many. */
  sweep(): number {
    return this.sessions.sweep((entry) => this.forgetOnWorker(entry));
  }

  /** Marks a session unusable (its state may be half-way through a request) and says why. */
  quarantine(entry: SessionEntry, code: string, message: string): void {
    entry.quarantine = { code, message };
    if (entry.fast) entry.fast.open = false;
    this.o.log(`session ${entry.id} quarantined: ${code}: ${message}`);
  }

  /** Frees a session's state on its worker (queued behind any request still running there). */
  forgetOnWorker(entry: SessionEntry): void {
    this.runtime.unplace(entry.slot, entry.meta.numEnvs);
    void this.runtime.call(entry.slot, { op: "delete", session: entry.id, format: "msgpack" }).catch(() => undefined);
  }

  /** Deletes a session from the store and its worker. */
  dropSession(entry: SessionEntry, why: string): void {
    if (this.sessions.delete(entry.id, why)) this.forgetOnWorker(entry);
    if (entry.fast) this.fastHandles.delete(entry.fast.handle);
  }

  /**
   * Issues the session's fast-path key (once; later calls return the same binding) and gives it to
   * the session's worker, which then opens the session to a connection presenting the key.
   */
  async bindFastPath(entry: SessionEntry, attach: (body: AttachBody) => Promise<unknown>): Promise<FastBinding> {
    if (!entry.fast) {
      const binding = { key: randomBytes(24).toString("base64url"), handle: this.nextFastHandle++, open: false };
      await attach({ key: binding.key, handle: binding.handle });
      entry.fast = binding;
      this.fastHandles.set(binding.handle, entry);
    }
    return entry.fast;
  }

  /** Stops the sweep, drops every session and table, and stops the workers. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.sessions.clear();
    this.tables?.close();
    await this.runtime.close();
  }

  /** What the worker pool tells the store about fast-path connections: opened, closed, faulted, over budget. */
  private fastPathHooks(prefix: string): NonNullable<RuntimeOptions["fastPath"]> {
    const o = this.o;
    return {
      prefix,
      maxFrame: o.bodyLimit,
      maxEnvsPerSession: o.maxEnvsPerSession,
      event: (e) => {
        const entry = this.sessions.find(e.session);
        if (!entry?.fast) return;
        entry.lastUsed = o.now();
        if (e.kind === "fault") {
          this.quarantine(entry, e.code, e.message);
          void this.runtime.call(entry.slot, { op: "delete", session: entry.id, format: "msgpack" }).catch(() => undefined);
        } else entry.fast.open = e.kind === "open";
      },
      expired: (handle) => {
        const entry = this.fastHandles.get(handle);
        if (entry && !entry.quarantine) this.quarantine(entry, "step_timeout", `a fast-path request did not finish within ${o.stepTimeoutMs} ms`);
      },
      stepped: (steps, envSteps) => this.metrics.recordStep(envSteps, steps),
    };
  }

  /** The live tables kept under `dataDir`, with the journals of tables that were playing recovered. */
  private openTables(dataDir: string): TableStore {
    const o = this.o;
    const tables = new TableStore({
      dataDir,
      registry: o.registry,
      adapters: o.adapters,
      modelRoot: o.modelDir,
      maxTables: o.maxTables,
      maxFinished: o.maxFinishedTables,
      log: o.log,
      maxAgentCost: o.maxAgentCost,
      // Table agents decide on the worker pool under the step budget, like session agents.
      decide: (job, affinity) => this.runtime.runDecision(job, { budgetMs: o.stepTimeoutMs, affinity }),
      ...(o.liveClock ? { clock: o.liveClock } : {}),
    });
    const { recovered, failed } = tables.recover();
    if (recovered > 0) o.log(`live tables: ${recovered} recovered from ${dataDir}`);
    for (const f of failed) o.log(`live tables: journal ${f.id} not recovered: ${f.reason}`);
    return tables;
  }
}
