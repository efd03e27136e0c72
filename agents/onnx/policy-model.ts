import { realpathSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { isMainThread } from "node:worker_threads";
import type { InferenceSession, Tensor } from "onnxruntime-node";
import { contractViolations, INPUT_NAME, OUTPUT_NAME, VALUE_NAME, type ModelExpectation } from "./contract.ts";
import { ModelFormatError, readModelInfo, type ModelInfo } from "./model-info.ts";

/**
 * The `runtime=` values an onnx agent spec accepts. onnxruntime-node runs every model; `ort` and
 * `auto` (the values older specs carry) are accepted and mean the same. `js` named an in-process
 * executor that was removed: it is refused with a message saying so (see RUNTIME_JS_REMOVED).
 */
export type Runtime = "auto" | "ort";
export const RUNTIMES: readonly Runtime[] = ["auto", "ort"];
export const RUNTIME_JS_REMOVED =
  "runtime=js is no longer supported: onnxruntime-node runs every model (the in-process executor was removed); drop runtime= or write runtime=ort";

export interface LoadOptions {
  /** Refuse files larger than this (bytes). */
  readonly maxBytes: number;
  /** When set, the model must resolve (symlinks followed) to a file inside this directory. */
  readonly root?: string;
  /** Largest batch per model run; bigger queues are split. */
  readonly maxBatch?: number;
}

export class ModelLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelLoadError";
  }
}

/**
 * ONNX Runtime 1.29+ starts its telemetry when the first model loads: it creates mat-debug-<pid>.log
 * and .ses in the temp directory (left behind by every process that ran a model), a device-id
 * database under ~/.cache, and tries to upload events. ORT_DISABLE_TELEMETRY=1, set before that
 * first load, turns all of it off; a value the user set (0 to keep telemetry) is left alone. The
 * runtime reads the process's real environment, which only the main thread's process.env writes
 * (a worker's is a copy), so this runs at import in the main thread, and the code that starts
 * model-running workers calls it too before starting them.
 */
export function disableOnnxTelemetry(env: NodeJS.ProcessEnv | undefined = globalThis.process?.env): void {
  // No process at all (the engine bundle run inside Python's JavaScript engine): no runtime to tell.
  if (env !== undefined && isMainThread && env.ORT_DISABLE_TELEMETRY === undefined) env.ORT_DISABLE_TELEMETRY = "1";
}
disableOnnxTelemetry();

type Ort = typeof import("onnxruntime-node");
let ortModule: Promise<Ort> | null = null;
// Loaded on first use so that CLIs and servers that never seat an ONNX agent skip the native addon.
const ort = (): Promise<Ort> => (ortModule ??= import("onnxruntime-node"));

interface Pending {
  readonly obs: Float32Array;
  /**
   * The logits, this request's share of the run's seconds (the run divided by its batch), and the
   * value output's number for this row (null when the model has no value output).
   */
  readonly resolve: (logits: Float32Array, seconds: number, value: number | null) => void;
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
  /** The model has the contract's optional `value` output (a policy-value network). */
  readonly hasValue: boolean;
  /** Runs and requests served, for tests and benches. */
  readonly stats = { runs: 0, requests: 0, largestBatch: 0 };
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
  ) {
    const width = (name: string, list: ModelInfo["inputs"]) => {
      const d = list.find((t) => t.name === name)?.dims?.[1];
      return typeof d === "number" ? d : -1;
    };
    this.obsSize = width(INPUT_NAME, info.inputs);
    this.actionSize = width(OUTPUT_NAME, info.outputs);
    this.hasValue = info.outputs.some((t) => t.name === VALUE_NAME);
    const batch = info.inputs.find((t) => t.name === INPUT_NAME)?.dims?.[0];
    this.maxBatch = batch === 1 ? 1 : maxBatch;
  }

  /**
   * Resolves once the model can answer: the onnxruntime session exists (created once; the first
   * call also loads onnxruntime-node itself). Rejects with a ModelLoadError naming the file.
   */
  async ready(): Promise<void> {
    await this.ortSession();
  }

  /**
   * The onnxruntime session (created once). A model run in batches (dynamic batch, maxBatch above
   * 1) is first run once at a batch of 2, so that one that only works at batch 1 is refused here,
   * naming the file, instead of failing at its first batched decision.
   */
  ortSession(): Promise<InferenceSession> {
    this.session ??= ort().then(async (m) => {
      let session: InferenceSession;
      try {
        session = await m.InferenceSession.create(this.bytes, { graphOptimizationLevel: "all", intraOpNumThreads: 1, interOpNumThreads: 1 });
      } catch (e) {
        throw new ModelLoadError(`${this.file}: onnxruntime cannot load the model: ${(e as Error).message}`);
      }
      if (this.maxBatch > 1 && this.obsSize > 0) await this.checkBatchOfTwo(session, m);
      this.loaded = { session, ort: m };
      return session;
    });
    return this.session;
  }

  /** Runs zeros at a batch of 2 and checks each output comes back with 2 rows of its declared width. */
  private async checkBatchOfTwo(session: InferenceSession, m: Ort): Promise<void> {
    const refuse = (what: string) =>
      new ModelLoadError(
        `model file ${this.file} declares a dynamic batch but fails at a batch of 2 (refused; export it with a working dynamic batch or a fixed batch of 1): ${what}`,
      );
    let out: InferenceSession.OnnxValueMapType;
    try {
      out = await session.run({ [INPUT_NAME]: new m.Tensor("float32", new Float32Array(2 * this.obsSize), [2, this.obsSize]) });
    } catch (e) {
      throw refuse(`onnxruntime: ${(e as Error).message}`);
    }
    const outputs: [string, number][] = [[OUTPUT_NAME, this.actionSize]];
    if (this.hasValue) outputs.push([VALUE_NAME, 1]);
    for (const [name, width] of outputs) {
      const t = out[name] as Tensor | undefined;
      if (!t || t.type !== "float32") throw refuse(`no float32 "${name}"`);
      const want = width > 0 ? [2, width] : [2, t.dims[1]];
      if (t.dims.length !== 2 || t.dims[0] !== want[0] || t.dims[1] !== want[1])
        throw refuse(`at a batch of 2 "${name}" has shape [${t.dims.join(", ")}], expected [${want.join(", ")}]`);
    }
  }

  /** Logits for one observation (length obsSize); resolves with a view of length actionSize. */
  infer(obs: Float32Array): Promise<Float32Array> {
    return new Promise((resolve, reject) => this.enqueue({ obs, resolve, reject }));
  }

  /**
   * As infer, with the seconds of model work this observation cost: the batch run it joined (input
   * copy, onnxruntime, output) divided by the batch size. Time spent queued behind other runs is
   * not counted.
   */
  inferTimed(obs: Float32Array): Promise<{ readonly logits: Float32Array; readonly seconds: number }> {
    return new Promise((resolve, reject) => this.enqueue({ obs, resolve: (logits, seconds) => resolve({ logits, seconds }), reject }));
  }

  /**
   * Logits and value for one observation, with its share of the run's seconds (as inferTimed). The
   * value is the model's raw number, or null without a value output; callers must treat it as
   * untrusted (it may be NaN or out of range).
   */
  inferWithValue(obs: Float32Array): Promise<{ readonly logits: Float32Array; readonly value: number | null; readonly seconds: number }> {
    return new Promise((resolve, reject) => this.enqueue({ obs, resolve: (logits, seconds, value) => resolve({ logits, value, seconds }), reject }));
  }

  private enqueue(request: Pending): void {
    this.queue.push(request);
    if (!this.scheduled && !this.running) {
      this.scheduled = true;
      setImmediate(() => void this.drain());
    }
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
    if (this.loaded === null) await this.ortSession();
    const start = performance.now();
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
    let values: Float32Array | null = null;
    if (this.hasValue) {
      const v = out[VALUE_NAME] as Tensor | undefined;
      if (!v || v.type !== "float32") throw new ModelLoadError(`${this.file}: the model produced no float32 "${VALUE_NAME}"`);
      values = v.data as Float32Array;
      if (values.length !== n) throw new ModelLoadError(`${this.file}: "${VALUE_NAME}" has ${values.length} values for a batch of ${n}`);
    }
    this.stats.runs++;
    this.stats.requests += n;
    this.stats.largestBatch = Math.max(this.stats.largestBatch, n);
    const share = (performance.now() - start) / 1000 / n;
    for (let i = 0; i < n; i++) batch[i]!.resolve(flat.subarray(i * width, (i + 1) * width), share, values === null ? null : values[i]!);
  }

  async release(): Promise<void> {
    const s = this.session;
    this.session = null;
    this.loaded = null;
    if (s) await (await s.catch(() => null))?.release();
  }
}

/** A model path given by the local user (CLI): any file, errors name the path. */
function findModel(path: string): string {
  try {
    return realpathSync(isAbsolute(path) ? path : resolve(process.cwd(), path));
  } catch {
    throw new ModelLoadError(`model file ${path} not found`);
  }
}

/**
 * A model path given by a remote client, confined to the host's model directory. The path is
 * checked as text before the file system is touched, and every refusal (absolute, `..`, outside
 * through a link, missing, not a file) reads the same, so answers never reveal which files exist
 * elsewhere on the server, nor where the server is installed.
 */
function findConfinedModel(path: string, root: string): string {
  if (path.length === 0 || path.length > 1024 || path.includes("\0") || isAbsolute(path) || path.split(/[\\/]/).includes("..")) throw noConfinedModel(path);
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    throw new ModelLoadError("the server's model directory does not exist");
  }
  let real: string;
  try {
    real = realpathSync(resolve(realRoot, path));
  } catch {
    throw noConfinedModel(path);
  }
  const rel = relative(realRoot, real);
  if (rel === "" || rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel)) throw noConfinedModel(path);
  return real;
}

function noConfinedModel(path: string): ModelLoadError {
  return new ModelLoadError(`no model file ${JSON.stringify(path.slice(0, 200))} in the model directory (paths are relative to it)`);
}

const MB = 1024 * 1024;
const cache = new Map<string, PolicyModel>();
const CACHE_LIMIT = 16;

/**
 * Reads and checks a model file synchronously (so agent creation can refuse it at once), sharing
 * one PolicyModel per (real path, size, mtime). Throws ModelLoadError with a one-line reason.
 */
export function loadPolicyModel(path: string, options: LoadOptions): PolicyModel {
  const real = options.root === undefined ? findModel(path) : findConfinedModel(path, options.root);
  const st = statSync(real);
  if (!st.isFile()) throw options.root === undefined ? new ModelLoadError(`model path ${path} is not a regular file`) : noConfinedModel(path);
  if (st.size > options.maxBytes) {
    throw new ModelLoadError(`model file ${path} is too large: ${(st.size / MB).toFixed(1)} MB, the limit is ${(options.maxBytes / MB).toFixed(1)} MB (maxMB)`);
  }
  if (st.size === 0) throw new ModelLoadError(`model file ${path} is empty: not an ONNX model`);
  const key = `${real}\0${st.size}\0${st.mtimeMs}\0${options.maxBatch ?? 4096}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const bytes = new Uint8Array(readFileSync(real));
  if (bytes.length > options.maxBytes) throw new ModelLoadError(`model file ${path} is too large (it grew while being read)`);
  const model = fromBytes(path, bytes, options.maxBatch ?? 4096);
  if (cache.size >= CACHE_LIMIT) {
    const [oldKey, old] = cache.entries().next().value as [string, PolicyModel];
    cache.delete(oldKey);
    void old.release();
  }
  cache.set(key, model);
  return model;
}

/** A model from bytes already in memory (tests, benches); same checks as a file. */
export function policyModelFromBytes(label: string, bytes: Uint8Array, maxBatch = 4096): PolicyModel {
  return fromBytes(label, bytes, maxBatch);
}

function fromBytes(label: string, bytes: Uint8Array, maxBatch: number): PolicyModel {
  let info: ModelInfo;
  try {
    info = readModelInfo(bytes);
  } catch (e) {
    if (e instanceof ModelFormatError) throw new ModelLoadError(`model file ${label}: ${e.message}`);
    throw e;
  }
  return new PolicyModel(label, bytes, info, maxBatch);
}

/** Refuses a model whose signature or metadata does not match the game's spec. */
export function checkPolicyModel(model: PolicyModel, want: ModelExpectation): void {
  const problems = contractViolations(model.info, want);
  if (problems.length > 0) throw new ModelLoadError(`model ${model.file} does not fit ${want.game}: ${problems.join("; ")}`);
}
