import { Compile } from "typebox/compile";
import { fail, type Result } from "../engine/core/index.ts";
import { registry } from "../engine/games.ts";
import { createAgent } from "../agents/spec.ts";
import type { Facilitatee } from "../agents/facilitatee.ts";
import type { AgentContext } from "../agents/spec.ts";
import { EnvRequestError } from "./errors.ts";
import { adapters } from "./games/index.ts";
import type { EnvBatch, LearningFacilitator } from "./learning-facilitator.ts";
import { hostError } from "./server/host-error.ts";
import { createSessionBody, resetBody } from "./server/schemas.ts";
import { createFacilitator, gameSummary, sessionInfo } from "./server/session-info.ts";
import { ReplyBuffer } from "./reply-layout.ts";

/**
 * The learning sessions of the server, for a host that embeds a JavaScript engine instead of
 * running Node: the Python package's in-process runtime (python/cardgym/inprocess.py) evaluates
 * this module's bundle (scripts/build/inprocess.mjs) and calls the functions of `api` directly,
 * one call per reset or step. Sessions are the server's own (the same create bodies, validated by
 * the same schemas, the same LearningFacilitator), so the same seeds and actions give the same
 * observations, masks, rewards and state hashes.
 *
 * Calls never throw: a failure comes back as a JSON string `{"error": {status, code, message,
 * ...}}` (as the server's error body). A reset or step writes its batch into the session's reply
 * buffer (`buffer(handle)`, one Uint8Array the host keeps a view of) in the layout of
 * env/reply-layout.ts and returns its length; the host copies those bytes out and views them
 * without a per-element conversion.
 *
 * All numbers are in the host's byte order (the host is the same process). Only what the
 * in-process host needs is offered: float32 observations (either autoreset; a same-step step's
 * `final` rows follow the batch in the layout), agents that answer synchronously and need no files
 * (onnx seats need the server).
 */

/** The most envs one in-process session may hold (the server's default limit). */
const MAX_ENVS = 1024;
const checkCreate = Compile(createSessionBody(MAX_ENVS));
const checkReset = Compile(resetBody(MAX_ENVS));
const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** An in-process session: its facilitator, its reply buffer and the action ids the host writes for `stepWritten`. */
interface InProcessSession {
  readonly f: LearningFacilitator;
  readonly out: ReplyBuffer;
  readonly actions: Int32Array;
}

const sessions = new Map<number, InProcessSession>();
let nextHandle = 1;

/** The agent factory of in-process sessions: the server's, minus agents that load model files. */
function inProcessAgent(spec: string, ctx: AgentContext): Result<Facilitatee> {
  if (/^onnx(:|$)/.test(spec.trim()))
    return fail("invalid_config", `agent "${spec}" loads a model file, which only the server can: play it through a server (cardgym.Client)`);
  return createAgent(spec, ctx);
}

const setup = { registry, adapters, createAgent: inProcessAgent, modelDir: "" };

/** A refusal of the in-process host itself (a body off its schema, an unknown handle), with the server's status and code. */
class HostRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

function errorJson(e: unknown): string {
  if (e instanceof HostRefusal) return JSON.stringify({ error: { status: e.status, code: e.code, message: e.message } });
  const { status, code, message, details } = hostError(e);
  return JSON.stringify({ error: { status, code, message, ...details } });
}

function invalidBody(what: string, check: { Errors(v: unknown): { instancePath: string; message: string }[] }, body: unknown): HostRefusal {
  const first = check.Errors(body)[0];
  return new HostRefusal(400, "invalid_body", `${what} ${first ? `${first.instancePath || "/"} ${first.message}` : "does not match the schema"}`);
}

function session(handle: number): InProcessSession {
  const found = sessions.get(handle);
  if (!found) throw new HostRefusal(404, "unknown_session", `no in-process session ${handle} (closed?)`);
  return found;
}

/** A batch that came back as a promise: an agent answered asynchronously, which needs the server. */
function settled(b: EnvBatch | Promise<EnvBatch>): EnvBatch {
  if (b instanceof Promise) {
    b.catch(() => undefined);
    throw new EnvRequestError("invalid_config", "an agent of this session answered asynchronously; in-process sessions need agents that answer at once");
  }
  return b;
}

function guarded<T>(run: () => T): T | string {
  try {
    return run();
  } catch (e) {
    return errorJson(e);
  }
}

export const api = {
  /** GET /v1/games's list, as JSON. */
  games(): string {
    return JSON.stringify([...adapters].filter(([id]) => registry.get(id).ok).map(([id, adapter]) => gameSummary(id, adapter)));
  },

  /** POST /v1/sessions: the create body as JSON; the create reply as JSON with `handle` in place of the session id. */
  create(bodyJson: string): string {
    return guarded(() => {
      const body: unknown = JSON.parse(bodyJson);
      if (!checkCreate.Check(body)) throw invalidBody("create body", checkCreate, body);
      if (body.obsDtype !== undefined && body.obsDtype !== "float32") {
        throw new EnvRequestError("invalid_config", "in-process sessions send float32 observations only (obsDtype)");
      }
      const f = createFacilitator(body, setup);
      const handle = nextHandle++;
      sessions.set(handle, { f, out: new ReplyBuffer(f), actions: new Int32Array(f.settings.numEnvs) });
      return JSON.stringify({ ...sessionInfo(String(handle), f), handle });
    });
  },

  /** The session's reply buffer: resets, steps and observations write into it (ReplyBuffer). */
  buffer(handle: number): Uint8Array | string {
    return guarded(() => session(handle).out.bytes);
  },

  /** POST /v1/sessions/:id/reset: the body as JSON (null or undefined for none); the reply's length in the buffer. */
  reset(handle: number, bodyJson?: string | null): number | string {
    return guarded(() => {
      const body: unknown = bodyJson === null || bodyJson === undefined ? {} : JSON.parse(bodyJson);
      if (!checkReset.Check(body)) throw invalidBody("reset body", checkReset, body);
      const { f, out } = session(handle);
      return out.batch(settled(f.resetNow(body)));
    });
  },

  /** POST /v1/sessions/:id/step with one action id per env, a number (one env) or an array; the reply's length in the buffer. */
  step(handle: number, actions: number | readonly number[]): number | string {
    try {
      const list = typeof actions === "number" ? [actions] : Array.from(actions);
      for (const x of list) {
        if (!Number.isInteger(x) || x < INT32_MIN || x > INT32_MAX)
          throw new HostRefusal(400, "invalid_body", `step body /actions: ${String(x)} is not a 32-bit integer`);
      }
      const { f, out } = session(handle);
      return out.batch(settled(f.stepNow(list)));
    } catch (e) {
      return errorJson(e); // as guarded(), without a closure per step
    }
  },

  /**
   * The session's action buffer (one int32 per env, in the host's byte order): the host writes a
   * step's action ids into it and calls `stepWritten`, which saves converting the host's list into
   * a JavaScript array (through PythonMonkey, about 50 µs for 64 ids: most of what a self-play step
   * of 64 envs cost beyond the engine's work).
   */
  actions(handle: number): Uint8Array | string {
    return guarded(() => new Uint8Array(session(handle).actions.buffer));
  },

  /** `step` with the action ids the host wrote into the action buffer (one per env). */
  stepWritten(handle: number): number | string {
    try {
      const { f, out, actions } = session(handle);
      return out.batch(settled(f.stepNow(actions)));
    } catch (e) {
      return errorJson(e);
    }
  },

  /**
   * GET /v1/sessions/:id/mask (with `?labels=true` when `labels`), as JSON: the step, each env's
   * legal-action mask (0/1, envs x actions, row by row) and acting seat, and each env's readable
   * labels of its legal actions when asked. Not on the hot path (a debugging and UI read).
   */
  mask(handle: number, labels: boolean): string {
    return guarded(() => {
      const { f } = session(handle);
      const { mask, seat } = f.mask();
      return JSON.stringify({ step: f.steps, mask: Array.from(mask), seat: Array.from(seat), ...(labels === true ? { labels: f.labels() } : {}) });
    });
  },

  /** GET /v1/sessions/:id/render?env=i: the text. */
  render(handle: number, env: number): string {
    return guarded(() => JSON.stringify({ text: session(handle).f.render(env) }));
  },

  /** Seat `seat`'s observation of env `env` now (LearningFacilitator.observation), written as float32 at the buffer's start; its length. */
  observe(handle: number, env: number, seat: number): number | string {
    return guarded(() => {
      const { f, out } = session(handle);
      return out.observation(f.observation(env, seat));
    });
  },

  /** Each env's canonical state hash (null before the first reset), as JSON. */
  hashes(handle: number): string {
    return guarded(() => JSON.stringify(session(handle).f.hashes()));
  },

  close(handle: number): void {
    sessions.delete(handle);
  },
};
