/**
 * Checks of the events contract (docs/events.md) that hold for every game:
 * - `eventShapeProblems`: the first event is the decision, whose full face is exactly the actor's
 *   label (`describe`) and which every viewer can read a line of; audiences name real seats; data
 *   holds only small values; events are deterministic and change no state.
 * - `eventLeakProblems`: what a viewer reads of a decision's events must be a function of what it
 *   may know. Two worlds that the viewer cannot tell apart before the decision (a re-deal from its
 *   view, `determinize`), by the decision (the same public part, per the game's rules) and after it
 *   (the same view) must give it the same projected events. A label that names a hidden card or cell (a secret strategy
 *   placement, a face-down feint) differs between such worlds and fails.
 */
import { canonicalJson, projectEvents, stateHash, type AnyGame, type GameEvent, type Rng, type Viewer } from "../../engine/core/index.ts";

export function viewersOf(game: AnyGame, state: unknown): Viewer[] {
  const seats = game.config(state).seats as number;
  return [...Array.from({ length: seats }, (_, i) => i), "spectator"];
}

export function eventShapeProblems(game: AnyGame, before: unknown, decision: unknown, after: unknown): string[] {
  const problems: string[] = [];
  const hash = stateHash(before);
  const afterHash = stateHash(after);
  const events = game.events(before, decision, after);
  if (canonicalJson(game.events(before, decision, after)) !== canonicalJson(events)) problems.push("events are not deterministic");
  if (stateHash(before) !== hash || stateHash(after) !== afterHash) problems.push("events changed a state");
  const first = events[0];
  if (first === undefined || first.kind !== "decision") return [...problems, "the first event is not the decision"];
  const label = game.describe(before, decision);
  if (first.face.text !== label) problems.push(`the decision's full face ${JSON.stringify(first.face.text)} is not the label ${JSON.stringify(label)}`);
  const actor = game.actor(before);
  if (first.seat !== (actor === "terminal" ? null : actor)) problems.push(`the decision event's seat ${first.seat} is not the actor ${actor}`);
  if (first.to !== "all" && !first.to.includes(actor as number)) problems.push("the actor cannot read its own decision");
  if (first.others === null) problems.push("the decision event has no face for the others");
  const seats = game.config(before).seats as number;
  events.forEach((e, i) => problems.push(...oneEventProblems(e, seats).map((p) => `event ${i} (${e.kind}): ${p}`)));
  for (const viewer of viewersOf(game, before)) {
    const seen = projectEvents(events, viewer);
    if (seen[0]?.kind !== "decision") problems.push(`viewer ${viewer} reads no line for the decision`);
    if (events.slice(1).some((e) => e.kind === "decision")) problems.push("more than one decision event");
  }
  return problems;
}

function oneEventProblems(e: GameEvent, seats: number): string[] {
  const problems: string[] = [];
  if (e.to !== "all") {
    if (e.to.length === 0 || e.to.some((s) => !Number.isInteger(s) || s < 0 || s >= seats))
      problems.push(`audience ${JSON.stringify(e.to)} names no real seat`);
    if (e.kind === "decision" && e.others === null) problems.push("a private decision without a face for the others");
  }
  for (const face of e.others === null ? [e.face] : [e.face, e.others]) {
    if (typeof face.text !== "string" || face.text.length === 0) problems.push("an empty text");
    for (const [k, v] of Object.entries(face.data ?? {})) {
      const small = v === null || typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v)) || (typeof v === "string" && v.length <= 200);
      if (!small) problems.push(`data.${k} is not a small value`);
    }
  }
  return problems;
}

export interface LeakTally {
  /** Worlds compared (viewer, re-deal, decision) whose views agreed before and after. */
  compared: number;
  /** Of those, comparisons of a decision with an event the viewer could not read in full. */
  hiddenCompared: number;
}

/** Which seat's view to re-deal from for `viewer`: its own; a spectator knows less than any seat, so any non-acting one. */
function dealerFor(game: AnyGame, before: unknown, viewer: Viewer): number {
  if (viewer !== "spectator") return viewer;
  const seats = game.config(before).seats as number;
  const actor = game.actor(before);
  return actor === "terminal" || seats === 1 ? 0 : (actor + 1) % seats;
}

/**
 * What a viewer other than the actor may know of a decision, written from each game's rules (not
 * from its code): dcg's strategy placements are secret until both confirm (only that one was made),
 * a feint set face down shows its cell but not its card; a BlackPoker Search takes an unseen card
 * into a hidden hand, and a bulwark is set face down. Every other decision is public in full.
 */
const PUBLIC_PART: Readonly<Record<string, (before: any, d: any) => unknown>> = {
  dcg: (_s, d) => (d.kind === "strategyMove" ? { kind: d.kind } : d.kind === "feint" || d.kind === "reactFeint" ? { kind: d.kind, cell: d.cell } : d),
  blackpoker: (s, d) =>
    d.kind === "searchTake" || (d.kind === "chooseCard" && s.pending?.kind === "compose" && s.pending.action === "SetBulwark") ? { kind: d.kind } : d,
};

function publicPart(game: AnyGame, before: unknown, decision: unknown, viewer: Viewer): string {
  const own = viewer !== "spectator" && game.actor(before) === viewer;
  const part = PUBLIC_PART[game.info.id];
  return canonicalJson(own || part === undefined ? decision : part(before, decision));
}

/**
 * The re-dealt world keeps the real RNG state. It is hidden, but what it decides in the open (which
 * unit a random effect hits first) is public as it happens, and a view after the decision does not
 * always show it (two hits in either order leave the same board). Hidden contents still differ
 * between the worlds, so an event that names them still differs.
 */
function sameRng(world: unknown, before: unknown): unknown {
  const real = (before as { rng?: unknown }).rng;
  return real === undefined || typeof world !== "object" || world === null || !("rng" in world) ? world : { ...world, rng: real };
}

/**
 * Re-deals `before` from `viewer`'s knowledge `redeals` times; in each re-deal, every decision
 * that the viewer cannot tell from the real one (same public part; at most `cap`, the original
 * first when legal there) and that leaves the viewer's view as the real decision left it must give
 * the viewer the same projected events.
 */
export function eventLeakProblems(
  game: AnyGame,
  before: unknown,
  decision: unknown,
  after: unknown,
  viewer: Viewer,
  rng: Rng,
  tally: LeakTally,
  opts: { redeals: number; cap: number } = { redeals: 2, cap: 12 },
): string[] {
  const problems: string[] = [];
  const events = game.events(before, decision, after);
  const seen = canonicalJson(projectEvents(events, viewer));
  const hidden = events.some((e) => e.to !== "all" && (viewer === "spectator" || !e.to.includes(viewer)));
  const viewBefore = canonicalJson(game.view(before, viewer));
  const viewAfter = canonicalJson(game.view(after, viewer));
  const dealer = dealerFor(game, before, viewer);
  const wanted = canonicalJson(decision);
  const known = publicPart(game, before, decision, viewer);
  for (let r = 0; r < opts.redeals; r++) {
    const world = sameRng(game.determinize(game.view(before, dealer), dealer, rng), before);
    if (canonicalJson(game.view(world, viewer)) !== viewBefore) continue;
    const legal = game.legal(world).filter((d) => publicPart(game, world, d, viewer) === known);
    rng.shuffle(legal);
    legal.sort((a, b) => Number(canonicalJson(b) === wanted) - Number(canonicalJson(a) === wanted));
    for (const d of legal.slice(0, opts.cap)) {
      const next = game.applyTrusted(world, d);
      if (canonicalJson(game.view(next, viewer)) !== viewAfter) continue;
      tally.compared++;
      if (hidden) tally.hiddenCompared++;
      const other = canonicalJson(projectEvents(game.events(world, d, next), viewer));
      if (other !== seen) {
        problems.push(`viewer ${viewer} can tell apart two worlds it may not: it reads ${seen} in one and ${other} in the other`);
        return problems;
      }
    }
  }
  return problems;
}
