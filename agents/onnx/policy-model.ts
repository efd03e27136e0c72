import { realpathSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { InferenceSession, Tensor } from "onnxruntime-node";
import { contractViolations, INPUT_NAME, OUTPUT_NAME, type ModelExpectation } from "./contract.ts";
import { compileJsExecutor, type JsExecutor } from "./js-executor.ts";
import { ModelFormatError, readModelInfo, type ModelInfo } from "./model-info.ts";
import { GraphUnsupported } from "./onnx-graph.ts";

/**
 * Which executor computes the logits: `ort` always onnxruntime-node; `js` always the in-process
 * executor (js-executor.ts; a graph it cannot run is refused at load); `auto` one of the two per
 * loaded model, chosen at load from the graph and the host's expected batch (LoadOptions
 * .expectedBatch: how many decisions its host may ask for at once, e.g. a server session's env
 * count): the JS executor when it supports the graph and is expected to beat onnxruntime up to
 * that batch (small MLPs, few at once: onnxruntime's fixed cost per run dominates), else
 * onnxruntime (its GEMM wins on big batches). Never both for one model: the executors agree to
 * ~1e-6, not bit for bit, and which batch a request lands in depends on timing, so mixing them
 * would let a near-tie decide differently from run to run.
 */
export type Runtime = "auto" | "js" | "ort";
export const RUNTIMES: readonly Runtime[] = ["auto", "js", "ort"];

export interface LoadOptions {
  /** Refuse files larger than this (bytes). */
  readonly maxBytes: number;
  /** When set, the model must resolve (symlinks followed) to a file inside this directory. */
  readonly root?: string;
  /** Largest batch per model run; bigger queues are split. */
  readonly maxBatch?: number;
  /** Executor choice (default auto; see Runtime). */
  readonly runtime?: Runtime;
  /** How many decisions the host may ask for at once (auto's choice; default 1). */
  readonly expectedBatch?: number;
}

export class ModelLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelLoadError";
  }
}

type Ort = typeof import("onnxruntime-node");
let ortModule: Promise<Ort> | null = null;
// Loaded on first use so that CLIs and servers that never seat an ONNX agent skip the native addon.
const ort = (): Promise<Ort> => (ortModule ??= import("onnxruntime-node"));

interface Pending {
  readonly obs: Float32Array;
  readonly resolve: (logits: Float32Array) => void;
  readonly reject: (e: Error) => void;
}

/**
 * A loaded, contract-checked policy network shared by every agent that names the same file, with a
 * micro-batcher: requests made within one event-loop turn (many environments asking at once) are
 * queued and run as one [batch, obsSize] tensor after setImmediate; requests that arrive while a
 * run is in flight form the next batch. Runs are serialised per model.
 */
export class PolicyModel {
  readonly obsSize: number;
  readonly actionSize: number;
  /** Runs and requests served (all executors; jsRuns/jsRequests: by the JS executor), for tests and benches. */
  readonly stats = { runs: 0, requests: 0, largestBatch: 0, jsRuns: 0, jsRequests: 0 };
  /** The in-process executor, when the graph is one it runs (null: onnxruntime only). */
  readonly js: JsExecutor | null;
  /** Why the JS executor does not run this model (null when it does, or runtime=ort). */
  readonly jsUnsupported: string | null;
  private session: Promise<InferenceSession> | null = null;
  /** The session and module once loaded, so that a run needs no extra awaits. */
  private loaded: { session: InferenceSession; ort: Ort } | null = null;
  private queue: Pending[] = [];
  private scheduled = false;
  private running = false;
  private readonly maxBatch: number;
  /** The batch input buffer, reused across runs (runs are serialised, so one is enough). */
  private input = new Float32Array(0);

  constructor(
    readonly file: string,
    private readonly bytes: Uint8Array,
    readonly info: ModelInfo,
    maxBatch: number,
    readonly runtime: Runtime = "auto",
    readonly expectedBatch = 1,
  ) {
    const width = (name: string, list: ModelInfo["inputs"]) => {
      const d = list.find((t) => t.name === name)?.dims?.[1];
      return typeof d === "number" ? d : -1;
    };
    this.obsSize = width(INPUT_NAME, info.inputs);
    this.actionSize = width(OUTPUT_NAME, info.outputs);
    const batch = info.inputs.find((t) => t.name === INPUT_NAME)?.dims?.[0];
    this.maxBatch = batch === 1 ? 1 : maxBatch;
    let js: JsExecutor | null = null;
    let why: string | null = null;
    if (runtime !== "ort") {
      try {
        js = compileJsExecutor(bytes, info);
        if (js.obsSize !== this.obsSize || js.actionSize !== this.actionSize) {
          js = null;
          why = "its computed shapes differ from the declared ones";
        }
      } catch (e) {
        if (!(e instanceof GraphUnsupported)) throw e;
        why = e.message;
      }
      if (js === null && runtime === "js") throw new ModelLoadError(`model file ${file}: runtime=js cannot run this model: ${why}`);
    }
    if (js !== null && runtime === "auto" && jsBatchLimit(js) < Math.max(1, expectedBatch)) {
      // onnxruntime runs this model: free the JS copy of the weights.
      why = `onnxruntime is expected to be faster at batches of ${expectedBatch} (the JS executor wins up to ${jsBatchLimit(js)})`;
      js = null;
    }
    this.js = js;
    this.jsUnsupported = why;
  }

  /** True when the JS executor runs every batch of this model (one executor per model: see Runtime). */
  get jsOnly(): boolean {
    return this.js !== null;
  }

  /**
   * Resolves once the model can answer: the onnxruntime session exists (created once), except
   * with runtime=js. Under auto it is created even when the JS executor serves every batch, so
   * that a file onnxruntime refuses is refused as before. Rejects with a ModelLoadError naming
   * the file.
   */
  async ready(): Promise<void> {
    if (this.runtime !== "js") await this.ortSession();
  }

  /** The onnxruntime session (created once, whatever the runtime: benches compare against it). */
  ortSession(): Promise<InferenceSession> {
    this.session ??= ort()
      .then(async (m) => {
        const session = await m.InferenceSession.create(this.bytes, { graphOptimizationLevel: "all", intraOpNumThreads: 1, interOpNumThreads: 1 });
        this.loaded = { session, ort: m };
        return session;
      })
      .catch((e: unknown) => {
        throw new ModelLoadError(`${this.file}: onnxruntime cannot load the model: ${(e as Error).message}`);
      });
    return this.session;
  }

  /** Logits for one observation (length obsSize); resolves with a view of length actionSize. */
  infer(obs: Float32Array): Promise<Float32Array> {
    return new Promise((resolve, reject) => {
      this.queue.push({ obs, resolve, reject });
      if (!this.scheduled && !this.running) {
        this.scheduled = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    this.scheduled = false;
    this.running = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.maxBatch);
        try {
          await this.run(batch);
        } catch (e) {
          const err = e instanceof Error ? e : new Error(String(e));
          for (const p of batch) p.reject(err);
        }
      }
    } finally {
      this.running = false;
    }
  }

  private async run(batch: Pending[]): Promise<void> {
    const n = batch.length;
    if (this.js !== null) {
      this.runJs(batch);
      return;
    }
    if (this.loaded === null) await this.ortSession();
    const { session, ort: m } = this.loaded!;
    const obsSize = this.obsSize > 0 ? this.obsSize : batch[0]!.obs.length;
    let data: Float32Array;
    if (n === 1 && batch[0]!.obs.length === obsSize) {
      // Batch 1 (sequential callers): the request's own buffer is the tensor, no copy.
      data = batch[0]!.obs;
    } else {
      if (this.input.length < n * obsSize) this.input = new Float32Array(Math.max(n * obsSize, this.input.length * 2));
      data = n * obsSize === this.input.length ? this.input : this.input.subarray(0, n * obsSize);
      for (let i = 0; i < n; i++) data.set(batch[i]!.obs, i * obsSize);
    }
    const out = await session.run({ [INPUT_NAME]: new m.Tensor("float32", data, [n, obsSize]) });
    const logits = out[OUTPUT_NAME] as Tensor | undefined;
    if (!logits || logits.type !== "float32") throw new ModelLoadError(`${this.file}: the model produced no float32 "${OUTPUT_NAME}"`);
    const flat = logits.data as Float32Array;
    if (flat.length % n !== 0) throw new ModelLoadError(`${this.file}: "${OUTPUT_NAME}" has ${flat.length} values for a batch of ${n}`);
    const width = flat.length / n;
    this.stats.runs++;
    this.stats.requests += n;
    this.stats.largestBatch = Math.max(this.stats.largestBatch, n);
    for (let i = 0; i < n; i++) batch[i]!.resolve(flat.subarray(i * width, (i + 1) * width));
  }

  private runJs(batch: Pending[]): void {
    const js = this.js!;
    const n = batch.length;
    const width = js.actionSize;
    // A fresh buffer per run: each caller keeps its row until its own continuation has read it.
    const out = new Float32Array(n * width);
    for (let i = 0; i < n; i++) {
      const obs = batch[i]!.obs;
      if (obs.length !== js.obsSize) throw new ModelLoadError(`${this.file}: an observation has ${obs.length} floats, the model takes ${js.obsSize}`);
      js.run(obs, 1, i === 0 ? out : out.subarray(i * width));
    }
    this.stats.runs++;
    this.stats.requests += n;
    this.stats.jsRuns++;
    this.stats.jsRequests += n;
    this.stats.largestBatch = Math.max(this.stats.largestBatch, n);
    for (let i = 0; i < n; i++) batch[i]!.resolve(out.subarray(i * width, (i + 1) * width));
  }

  async release(): Promise<void> {
    const s = this.session;
    this.session = null;
    this.loaded = null;
    if (s) await (await s.catch(() => null))?.release();
  }
}

const MB = 1024 * 1024;
const cache = new Map<string, PolicyModel>();
const CACHE_LIMIT = 16;

/**
 * Reads and checks a model file synchronously (so agent creation can refuse it at once), sharing
 * one PolicyModel per (real path, size, mtime). Throws ModelLoadError with a one-line reason.
 */
export function loadPolicyModel(path: string, options: LoadOptions): PolicyModel {
  const base = options.root ?? process.cwd();
  const wanted = isAbsolute(path) ? path : resolve(base, path);
  let real: string;
  try {
    real = realpathSync(wanted);
  } catch {
    throw new ModelLoadError(`model file ${path} not found`);
  }
  if (options.root !== undefined) {
    let root: string;
    try {
      root = realpathSync(options.root);
    } catch {
      throw new ModelLoadError(`model directory ${options.root} does not exist`);
    }
    const rel = relative(root, real);
    if (rel === "" || rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel)) {
      throw new ModelLoadError(`model file ${path} is outside the model directory`);
    }
  }
  const st = statSync(real);
  if (!st.isFile()) throw new ModelLoadError(`model path ${path} is not a regular file`);
  if (st.size > options.maxBytes) {
    throw new ModelLoadError(`model file ${path} is too large: ${(st.size / MB).toFixed(1)} MB, the limit is ${(options.maxBytes / MB).toFixed(1)} MB (maxMB)`);
  }
  if (st.size === 0) throw new ModelLoadError(`model file ${path} is empty: not an ONNX model`);
  const runtime = options.runtime ?? "auto";
  const expected = options.expectedBatch ?? 1;
  const key = `${real}\0${st.size}\0${st.mtimeMs}\0${options.maxBatch ?? 4096}\0${runtime}${runtime === "auto" ? `@${expected}` : ""}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const bytes = new Uint8Array(readFileSync(real));
  if (bytes.length > options.maxBytes) throw new ModelLoadError(`model file ${path} is too large (it grew while being read)`);
  const model = fromBytes(path, bytes, options.maxBatch ?? 4096, runtime, expected);
  if (cache.size >= CACHE_LIMIT) {
    const [oldKey, old] = cache.entries().next().value as [string, PolicyModel];
    cache.delete(oldKey);
    void old.release();
  }
  cache.set(key, model);
  return model;
}

/** A model from bytes already in memory (tests, benches); same checks as a file. */
export function policyModelFromBytes(label: string, bytes: Uint8Array, maxBatch = 4096, runtime: Runtime = "auto", expectedBatch = 1): PolicyModel {
  return fromBytes(label, bytes, maxBatch, runtime, expectedBatch);
}

function fromBytes(label: string, bytes: Uint8Array, maxBatch: number, runtime: Runtime, expectedBatch: number): PolicyModel {
  let info: ModelInfo;
  try {
    info = readModelInfo(bytes);
  } catch (e) {
    if (e instanceof ModelFormatError) throw new ModelLoadError(`model file ${label}: ${e.message}`);
    throw e;
  }
  return new PolicyModel(label, bytes, info, maxBatch, runtime, expectedBatch);
}

/**
 * The largest batch for which the JS executor is expected to beat onnxruntime-node, from the
 * graph alone (so the choice does not depend on timing). Costs measured side by side on the
 * 2-core development machine (docs/agents.md, Bench), in ns: onnxruntime ~20 us per run, ~0.3
 * per multiply-add for the first observation (a batch of 1 is a matrix-vector product) and
 * ~0.05 for each further one (its SIMD GEMM); the JS executor ~0.4 per multiply-add actually done
 * with WebAssembly SIMD (~1.5 in plain JavaScript), layers reading the observation doing about a
 * fifth of theirs (mostly zero inputs). Gives 13 for the sevens MLP 426-64-53, 12 for shephy's
 * 138-64-74, 3 for blackpoker's 1097-64-589, 1 for dcg-ppo-v1 (measured crossovers: about the
 * same, a little higher).
 */
export function jsBatchLimit(js: JsExecutor): number {
  const ORT_RUN = 20_000;
  const ORT_FIRST = 0.3;
  const ORT_NEXT = 0.05;
  const perObs = js.sparseMacs * (js.simd ? 0.4 : 1.5) - js.denseMacs * ORT_NEXT;
  const fixed = ORT_RUN + js.denseMacs * (ORT_FIRST - ORT_NEXT);
  if (perObs <= 0) return Infinity;
  return Math.min(64, Math.floor(fixed / perObs));
}

/** Refuses a model whose signature or metadata does not match the game's spec. */
export function checkPolicyModel(model: PolicyModel, want: ModelExpectation): void {
  const problems = contractViolations(model.info, want);
  if (problems.length > 0) throw new ModelLoadError(`model ${model.file} does not fit ${want.game}: ${problems.join("; ")}`);
}
