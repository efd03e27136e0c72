/**
 * One side of bench-env-vs.ts, run in a worker thread of its own with the resource limits the
 * side's checkout gives its session workers: loads the checkout's learning-session factory
 * (workerData: root, game, modelRoot), then answers each measure request with env-steps per CPU
 * second. A benchmark, not a test.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parentPort, workerData } from "node:worker_threads";
import { cpuMs } from "./side-by-side.ts";

/** What the main thread sends: one measurement of `numEnvs` envs against `opponent` over about `ms` of CPU time. */
export interface MeasureRequest {
  readonly numEnvs: number;
  readonly opponent: string;
  readonly ms: number;
  readonly seed: number;
}

/** What the side answers: ready once loaded, then a rate per request, or the error that stopped it. */
export type SideReply = { readonly kind: "ready" } | { readonly kind: "rate"; readonly rate: number } | { readonly kind: "error"; readonly message: string };

export interface SideInit {
  readonly root: string;
  readonly game: string;
  readonly modelRoot: string;
}

/** The parts of a step reply the bench reads (every checkout's reply has them). */
export interface Batch {
  readonly mask: Uint8Array;
}

/** A session as both old and new checkouts offer it: stepNow (synchronous) where the checkout has it, else step. */
export interface Session {
  reset(seed: number): Batch | Promise<Batch>;
  stepNow?(actions: ArrayLike<number>): Batch | Promise<Batch>;
  step(actions: ArrayLike<number>): Promise<Batch>;
}

/** The opponent name that makes a self-play session instead: every seat external, same-step autoreset, only the acting seat observed. */
export const SELF_PLAY = "self-play";

export type CreateSession = (numEnvs: number, opponent: string, seed: number) => Session;

/**
 * The learning-session factory of the checkout at `root`, as its session worker builds sessions
 * (LearningFacilitator.create with the game's RL adapter, the agent factory and reuseReplies; a
 * checkout from before that option ignores it), the learner at seat 0 and `opponent` elsewhere;
 * for the opponent `self-play`, a session of cardgym.selfplay.vector_env (every seat external,
 * same-step autoreset, observe "acting").
 */
export async function loadSessions({ root, game, modelRoot }: SideInit): Promise<CreateSession> {
  const url = (p: string) => pathToFileURL(join(root, p)).href;
  const lf = await import(url("env/learning-facilitator.ts"));
  const { adapters } = await import(url("env/games/index.ts"));
  const { createAgent } = await import(url("agents/spec.ts"));
  const adapter = adapters.get(game);
  if (!adapter) throw new Error(`${root}: no RL adapter for ${game}`);
  const seats = adapter.game.info.defaultSeats as number;
  return (numEnvs, opponent, seed) =>
    lf.LearningFacilitator.create({
      adapter,
      // "self-play": every seat the trainer's, as cardgym.selfplay.vector_env creates it.
      ...(opponent === SELF_PLAY
        ? { seats: Array.from({ length: seats }, () => "external"), autoreset: "same-step", observe: "acting" }
        : { seats: ["learner", ...Array.from({ length: seats - 1 }, () => opponent)] }),
      numEnvs,
      seed,
      maxDecisions: null,
      createAgent,
      modelRoot,
      reuseReplies: true,
    }) as Session;
}

/** A small seeded generator (xorshift32) for the trainer's random picks: the same picks on every side. */
export function picker(seed: number): (n: number) => number {
  let x = seed >>> 0 || 1;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

/** Fills `actions` with a uniformly random legal action id per env, read from the mask. */
export function pickActions(mask: Uint8Array, actionSize: number, actions: Int32Array, pick: (n: number) => number, ids: Int32Array): void {
  for (let i = 0; i < actions.length; i++) {
    let count = 0;
    const row = i * actionSize;
    for (let a = 0; a < actionSize; a++) if (mask[row + a]) ids[count++] = a;
    // An env whose episode ended has an empty mask: its action is ignored (it autoresets).
    actions[i] = count === 0 ? 0 : ids[pick(count)]!;
  }
}

/**
 * Env-steps per CPU second of a new session over about `ms` of CPU time. The clock is the
 * process's: the other sides' workers wait for their next request meanwhile, so it counts this
 * side's own thread and the collector threads working for it.
 */
async function measure(create: CreateSession, { numEnvs, opponent, ms, seed }: MeasureRequest): Promise<number> {
  const session = create(numEnvs, opponent, seed);
  let batch = await session.reset(seed);
  const actionSize = batch.mask.length / numEnvs;
  const actions = new Int32Array(numEnvs);
  const ids = new Int32Array(actionSize);
  const pick = picker(seed);
  const step = session.stepNow ? session.stepNow.bind(session) : session.step.bind(session);
  let steps = 0;
  const start = cpuMs();
  let now = start;
  while (now - start < ms) {
    for (let k = 0; k < 16; k++) {
      pickActions(batch.mask, actionSize, actions, pick, ids);
      const b = step(actions);
      batch = b instanceof Promise ? await b : b;
      steps += numEnvs;
    }
    now = cpuMs();
  }
  return steps / ((now - start) / 1000);
}

const port = parentPort;
if (port) {
  const reply = (m: SideReply) => port.postMessage(m);
  const fail = (e: unknown) => reply({ kind: "error", message: e instanceof Error ? (e.stack ?? e.message) : String(e) });
  loadSessions(workerData as SideInit).then((create) => {
    port.on("message", (req: MeasureRequest) => {
      measure(create, req).then((rate) => reply({ kind: "rate", rate }), fail);
    });
    reply({ kind: "ready" });
  }, fail);
}
