import type { Continuation, CoreRequest, FlowState, Flowing, InterruptRules, Timing, TriggerCursor } from "./types.ts";
import { InvariantError } from "../errors.ts";

/** Step [1]/[2]: a fresh flow with the turn and the chance at `turnPlayer`. */
export function startFlow<P>(seats: number, turnPlayer: number): FlowState<P> {
  return {
    seats,
    turnPlayer,
    chancePlayer: turnPlayer,
    stage: [],
    passed: [],
    buffer: [],
    cursor: null,
    resolving: null,
    requested: null,
    then: "none",
  };
}

/** True while the flow waits for the chance holder's choice at step [3] (not mid-resolution). */
export function awaitingChance<P>(flow: FlowState<P>): boolean {
  return flow.resolving === null && flow.cursor === null && flow.requested === null && flow.buffer.length === 0;
}

/**
 * Timing check (タイミング): main = holds the chance, own turn, stage empty; quick = holds the chance.
 */
export function mayAct<P>(flow: FlowState<P>, seat: number, timing: Timing): boolean {
  if (!awaitingChance(flow) || flow.chancePlayer !== seat) return false;
  return timing === "quick" || (flow.turnPlayer === seat && flow.stage.length === 0);
}

/** The next seat in turn order. */
export function nextSeat<P>(flow: FlowState<P>, seat: number): number {
  return (seat + 1) % flow.seats;
}

/** Hands the turn to `seat` (an End-like effect). The chance follows at step [2] after the resolution. */
export function passTurn<S extends Flowing<P>, P>(state: S, seat: number): S {
  return { ...state, flow: { ...state.flow, turnPlayer: seat } };
}

function withFlow<S extends Flowing<P>, P>(state: S, patch: Partial<FlowState<P>>): S {
  return { ...state, flow: { ...state.flow, ...patch } };
}

/**
 * Steps [4]-[7] for the chance holder's request (its costs already paid by the game):
 * reset the pass record, check the win (costs such as taking damage may decide the game), run the
 * trigger check with whatever the costs triggered, then resolve it (immediate) or stage it (normal).
 */
export function request<S extends Flowing<P>, P>(state: S, req: CoreRequest<P>, triggeredByCosts: readonly CoreRequest<P>[], rules: InterruptRules<S, P>): S {
  const s = withFlow<S, P>(state, {
    passed: [],
    requested: req,
    then: "dispatch",
    buffer: state.flow.buffer.concat(triggeredByCosts),
  });
  // A game decided by the costs keeps the request in `requested` (its key cards stay accounted for).
  const over = rules.judge(s);
  if (over !== null) return over;
  return runTriggerCheck(s, rules);
}

/**
 * Steps [11]-[15]: the chance holder passes. When every seat has passed, the stage top is taken
 * out and resolved ([14] -> [8]); with an empty stage the chance returns to the turn player ([2]);
 * otherwise the chance moves to the next seat ([15]).
 */
export function pass<S extends Flowing<P>, P>(state: S, rules: InterruptRules<S, P>): S {
  const f = state.flow;
  const seat = f.chancePlayer;
  const passed = f.passed.includes(seat) ? f.passed : f.passed.concat(seat);
  if (passed.length < f.seats) return withFlow<S, P>(state, { passed, chancePlayer: nextSeat(f, seat) });
  const top = f.stage.at(-1);
  if (top === undefined) return withFlow<S, P>(state, { passed: [], chancePlayer: f.turnPlayer });
  const s = withFlow<S, P>(state, { passed: [], stage: f.stage.slice(0, -1), then: "afterStage" });
  return resolveNow(s, top, rules);
}

/** Step [8] for one request: marks it as resolving, asks the game, and goes on unless it suspended. */
function resolveNow<S extends Flowing<P>, P>(state: S, req: CoreRequest<P>, rules: InterruptRules<S, P>): S {
  const out = rules.resolve(withFlow<S, P>(state, { resolving: req }), req);
  if (out.suspended) return out.state;
  return finishResolution(out.state, out.triggered, rules);
}

/**
 * Ends step [8] for the request being resolved (call it after a suspended resolution's last
 * decision): step [9] win check, then the trigger check with what the resolution triggered, then
 * whatever the flow was doing.
 */
export function finishResolution<S extends Flowing<P>, P>(state: S, triggered: readonly CoreRequest<P>[], rules: InterruptRules<S, P>): S {
  const s = withFlow<S, P>(state, { resolving: null });
  const over = rules.judge(s);
  if (over !== null) return over;
  const next = triggered.length === 0 ? s : withFlow<S, P>(s, { buffer: s.flow.buffer.concat(triggered) });
  return runTriggerCheck(next, rules);
}

/**
 * The trigger check (誘発チェック, 6-1..6-12), resumable: it keeps its cursor in the state so that an
 * immediate triggered request whose resolution waits for a decision can suspend it.
 * Immediate requests first, per player from the turn player in turn order, main before quick;
 * then normal ones the same way: a main-timing normal request is discarded if the stage is not
 * empty, a quick-timing one is always staged. Within one player and timing: with the rules'
 * `chooseTriggerOrder`, when the matching requests are not all the same, the check suspends with
 * `flow.choice` and that player picks one (`chooseTrigger`); otherwise the earliest is taken (FIFO).
 * The loop repeats while the buffer is not empty, then runs the pending continuation.
 */
export function runTriggerCheck<S extends Flowing<P>, P>(state: S, rules: InterruptRules<S, P>): S {
  let s = state;
  for (;;) {
    const f = s.flow;
    let cursor = f.cursor;
    if (cursor === null) {
      if (f.buffer.length === 0) return continueFlow(s, rules); // [6-2]
      // [6-3]: immediate ones first, else [6-8] the normal ones.
      const group = f.buffer.some((r) => r.speed === "immediate") ? "immediate" : "normal";
      cursor = { group, offset: 0, timing: "main" };
    }
    const player = (f.turnPlayer + cursor.offset) % f.seats;
    const at = matching(f.buffer, player, cursor);
    const first = at[0];
    if (first === undefined) {
      // [6-5] -> [6-6] -> [6-7]: quick after main, then the next player; after the last, back to [6-2].
      let nextCursor: FlowState<P>["cursor"];
      if (cursor.timing === "main") nextCursor = { ...cursor, timing: "quick" };
      else if (cursor.offset + 1 < f.seats) nextCursor = { group: cursor.group, offset: cursor.offset + 1, timing: "main" };
      else nextCursor = null;
      s = withFlow<S, P>(s, { cursor: nextCursor });
      continue;
    }
    if (rules.chooseTriggerOrder === true && at.length > 1) {
      const options = distinctTriggers(f.buffer, at, rules);
      // [6-5-2]/[6-10-2]: the player chooses; the check waits with its cursor kept.
      if (options.length > 1) return withFlow<S, P>(s, { cursor, choice: { seat: player, options } });
    }
    const taken = takeTrigger(withFlow<S, P>(s, { cursor }), first, rules);
    if (taken.done) return taken.state;
    s = taken.state;
  }
}

/** The seat that must choose the order of its triggered requests now, or null. */
export function choosingSeat<P>(flow: FlowState<P>): number | null {
  return flow.choice === undefined ? null : flow.choice.seat;
}

/**
 * Answers a pending trigger-order choice with the buffer index of the request to take (one of
 * `flow.choice.options`), then resumes the trigger check. Any other index leaves the state as is
 * (the trusted apply's contract: games offer only the options).
 */
export function chooseTrigger<S extends Flowing<P>, P>(state: S, bufferIndex: number, rules: InterruptRules<S, P>): S {
  const choice = state.flow.choice;
  if (choice === undefined || !choice.options.includes(bufferIndex)) return state;
  const { choice: _answered, ...flow } = state.flow;
  const taken = takeTrigger({ ...state, flow }, bufferIndex, rules);
  return taken.done ? taken.state : runTriggerCheck(taken.state, rules);
}

/** Buffer indices of `player`'s requests of the cursor's group and timing, in trigger order. */
function matching<P>(buffer: readonly CoreRequest<P>[], player: number, cursor: TriggerCursor): number[] {
  const out: number[] = [];
  buffer.forEach((r, i) => {
    if (r.controller === player && r.speed === cursor.group && r.timing === cursor.timing) out.push(i);
  });
  return out;
}

/** The earliest index of each distinct request among `at` (the rest are the same game as one of them). */
function distinctTriggers<S extends Flowing<P>, P>(buffer: readonly CoreRequest<P>[], at: readonly number[], rules: InterruptRules<S, P>): number[] {
  const same = rules.sameTrigger ?? ((a: CoreRequest<P>, b: CoreRequest<P>) => sameJson(a.payload, b.payload));
  const out: number[] = [];
  const taken: CoreRequest<P>[] = [];
  for (const i of at) {
    const r = buffer[i];
    if (r !== undefined && !taken.some((t) => same(t, r))) {
      out.push(i);
      taken.push(r);
    }
  }
  return out;
}

/** Deep equality of plain JSON values (objects compared key by key, arrays in order). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/**
 * Takes buffer entry `at` ([6-5-2]/[6-10-2]) and processes it: an immediate one resolves
 * ([6-5-3]..[6-5-6]; `done`, as finishResolution re-enters the check or the resolution suspended);
 * a normal one is staged or discarded ([6-10-3]..[6-10-9]) and the check goes on.
 */
function takeTrigger<S extends Flowing<P>, P>(state: S, at: number, rules: InterruptRules<S, P>): { state: S; done: boolean } {
  const f = state.flow;
  const req = f.buffer[at];
  if (req === undefined) throw new InvariantError(`interrupt flow: no triggered request at buffer index ${at}`);

  const s = withFlow<S, P>(state, { buffer: f.buffer.slice(0, at).concat(f.buffer.slice(at + 1)) });
  if (req.speed === "immediate") return { state: resolveNow(s, req, rules), done: true };
  if (req.timing === "main" && s.flow.stage.length > 0) {
    return { state: rules.discarded ? rules.discarded(s, req) : s, done: false }; // [6-10-6]
  }
  return { state: stageRequest(s, req, rules), done: false }; // [6-10-5] / [6-10-7], then [6-10-8]/[6-10-9]
}

/** [10]: put a request onto the stage and buffer what that triggers. */
function stageRequest<S extends Flowing<P>, P>(state: S, req: CoreRequest<P>, rules: InterruptRules<S, P>): S {
  const s = withFlow<S, P>(state, { stage: state.flow.stage.concat(req) });
  const triggered = rules.staged ? rules.staged(s, req) : [];
  return triggered.length === 0 ? s : withFlow<S, P>(s, { buffer: s.flow.buffer.concat(triggered) });
}

function continueFlow<S extends Flowing<P>, P>(state: S, rules: InterruptRules<S, P>): S {
  const f = state.flow;
  const then: Continuation = f.then;
  switch (then) {
    case "none":
    case "keep":
      return then === "none" ? state : withFlow<S, P>(state, { then: "none" });
    case "afterStage":
      return withFlow<S, P>(state, { then: "none", passed: [], chancePlayer: f.turnPlayer });
    case "afterPush": {
      if (!rules.passAfterNormalRequest) return withFlow<S, P>(state, { then: "none" });
      // The requester (still the chance holder: a trigger check never moves the chance) passes at
      // once: its pass is recorded and the chance moves on.
      const requester = f.chancePlayer;
      return withFlow<S, P>(state, { then: "none", passed: [requester], chancePlayer: nextSeat(f, requester) });
    }
    case "dispatch": {
      const req = f.requested;
      if (req === null) return withFlow<S, P>(state, { then: "none" });
      if (req.speed === "immediate") {
        // [7] yes -> [8] -> [9] -> back to [3] with the same chance holder.
        return resolveNow(withFlow<S, P>(state, { requested: null, then: "keep" }), req, rules);
      }
      // [7] no -> [10]; then the check for what staging triggered, then the chance moves.
      const staged = stageRequest(withFlow<S, P>(state, { requested: null, then: "afterPush" }), req, rules);
      return runTriggerCheck(staged, rules);
    }
  }
}
