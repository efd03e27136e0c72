import { shephy, type ShephyDecision, type ShephyState } from "../../engine/shephy/index.ts";

/**
 * Whole plays of Shephy as single moves: a card played together with every sub-decision of its
 * effect (a completion), so a search can step from one play decision to the next. Golden Hooves
 * and Dominion selections are enumerated in increasing field order only (each subset once), and
 * completions that reach the same state are kept once.
 */
export interface Move {
  /** The decisions from the starting state, in order (the play first when it starts with one). */
  readonly decisions: readonly ShephyDecision[];
  /** The state after them: no effect pending, or the game over. */
  readonly state: ShephyState;
}

const code = (items: readonly number[]): string => String.fromCharCode(...items.map((x) => 65 + x));

/**
 * A state's identity inside one determinized search. Within one sample the deck is a function of
 * how many cards were drawn and of the Inspiration reshuffles (which advance the RNG), so its
 * length, the hand, the discard's size, the exile and the RNG stand for it; this is much cheaper
 * than writing out the deck and merges only states that play on identically.
 */
export function stateKey(s: ShephyState): string {
  const p = s.pending;
  const pend = p === null ? "" : `${p.card}.${p.source}.${p.left}.${code(p.selected)}`;
  return `${code(s.field)}|${code(s.hand)}|${code(s.exile)}|${s.deck.length}.${s.discard.length}.${s.enemy}.${s.rng[0]}.${s.result ?? ""}|${pend}`;
}

/** Legal decisions of a pending effect (`sel`: its selections so far), selections restricted to increasing field order. */
function steps(s: ShephyState, sel: readonly number[]): readonly ShephyDecision[] {
  const legal = shephy.legal(s);
  if (sel.length === 0) return legal;
  let last = -1;
  for (const i of sel) if (i > last) last = i;
  return legal.filter((d) => d.kind !== "select" || d.index > last);
}

/**
 * Every distinct way to finish the effect pending in `s` (one move with no decisions when none
 * is pending). `out` receives the moves; `prefix` is prepended to their decision lists.
 */
export function completions(s: ShephyState, prefix: readonly ShephyDecision[] = [], out: Move[] = [], seen: Set<string> = new Set()): Move[] {
  if (s.pending === null || s.result !== null) {
    const key = stateKey(s);
    if (!seen.has(key)) {
      seen.add(key);
      out.push({ decisions: prefix, state: s });
    }
    return out;
  }
  for (const d of steps(s, s.pending.selected)) completions(shephy.applyTrusted(s, d), [...prefix, d], out, seen);
  return out;
}

/** Every distinct whole play from a state where a card is to be played. */
export function plays(s: ShephyState): Move[] {
  const out: Move[] = [];
  const seen = new Set<string>();
  for (const d of shephy.legal(s)) completions(shephy.applyTrusted(s, d), [d], out, seen);
  return out;
}

/**
 * The states after every whole play from `s` (or after every completion of its pending effect),
 * without their decisions: the search's successor function. `seen` holds the keys (plus `tag`) of
 * states already produced, across calls, so one search never keeps a state twice; `emit` gets each
 * new one.
 */
export function successors(s: ShephyState, seen: Set<string>, tag: string, emit: (next: ShephyState) => void): void {
  if (s.pending === null) {
    for (const d of shephy.legal(s)) finish(shephy.applyTrusted(s, d), seen, tag, emit);
  } else finish(s, seen, tag, emit);
}

function finish(s: ShephyState, seen: Set<string>, tag: string, emit: (next: ShephyState) => void): void {
  if (s.pending === null || s.result !== null) {
    const key = stateKey(s) + tag;
    if (!seen.has(key)) {
      seen.add(key);
      emit(s);
    }
    return;
  }
  for (const d of steps(s, s.pending.selected)) finish(shephy.applyTrusted(s, d), seen, tag, emit);
}
