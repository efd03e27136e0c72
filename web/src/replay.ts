import { parseRecord, projectEvents, stateHash, type AnyGame, type GameEvent, type GameRecord, type Viewer } from "../../engine/core/index.ts";
import { registry } from "../../engine/games.ts";
import { api, ApiFailure } from "./api.ts";
import { boardFor } from "./boards/index.ts";
import { button, h, mount } from "./dom.ts";
import { eventItem } from "./eventlog.ts";

interface Replayed {
  readonly game: AnyGame;
  readonly record: GameRecord;
  /** states[k]: after k decisions. */
  readonly states: readonly unknown[];
  /** events[k]: what decision k did, every face (shown projected for the chosen viewer). */
  readonly events: readonly (readonly GameEvent[])[];
  readonly hashes: readonly string[];
  readonly verified: string;
}

/** Re-runs a record in this browser with the engine itself: every state, every decision's events. */
export function rerun(raw: unknown): Replayed {
  const parsed = parseRecord(raw);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const record = parsed.value;
  const found = registry.get(record.game);
  if (!found.ok) throw new Error(found.error.message);
  const game = found.value;
  if (record.version !== game.info.version)
    throw new Error(`the record is for ${record.game} version ${record.version}; this client has version ${game.info.version}`);
  const config = game.parseConfig(record.config);
  if (!config.ok) throw new Error(`record.config: ${config.error.message}`);
  let state = game.setup(config.value, record.seed);
  const states = [state];
  const events: (readonly GameEvent[])[] = [];
  let final = stateHash(state);
  const hashes = [final];
  record.decisions.forEach((d, i) => {
    const out = game.apply(state, d);
    if (!out.ok) throw new Error(`decision ${i + 1} cannot be applied: ${out.error.message}`);
    events.push(game.events(state, d, out.state));
    state = out.state;
    states.push(state);
    final = stateHash(state);
    hashes.push(final);
  });
  if (record.finalHash !== undefined && record.finalHash !== final)
    throw new Error(`the final state hash is ${final}, the record says ${record.finalHash}: not the game it claims to be`);
  return {
    game,
    record,
    states,
    events,
    hashes,
    verified: record.finalHash !== undefined ? "final state hash matches the record" : "the record carries no hash to check",
  };
}

/**
 * Replay: a finished table's record (`#/replay/<table>`) or a GameRecord file, re-run here; a
 * slider and the keys (← → Home End) move through the decisions; the viewer chooses whose view is
 * shown (a seat's, with its hidden cards, or the spectator's).
 */
export function replayScreen(root: HTMLElement, table: string | null): () => void {
  let r: Replayed | null = null;
  let at = 0;
  let viewer: Viewer = "spectator";
  const top = h("div", { class: "replay-source" });
  const body = h("div", { class: "replay-body" });
  mount(root, h("div", { class: "replay", "data-ready": "false" }, h("h2", null, table ? `Replay of table ${table}` : "Replay a game"), top, body));

  const load = (raw: unknown) => {
    try {
      r = rerun(raw);
      at = r.states.length - 1;
      viewer = "spectator";
      draw();
      root.querySelector(".replay")?.setAttribute("data-ready", "true");
    } catch (err) {
      r = null;
      root.querySelector(".replay")?.setAttribute("data-ready", "false");
      mount(body, h("p", { class: "err", role: "alert" }, `Cannot replay: ${err instanceof Error ? err.message : String(err)}`));
    }
  };
  const file = h("input", {
    type: "file",
    accept: ".json,application/json",
    "aria-label": "GameRecord file",
    onchange: async (e) => {
      const f = (e.target as HTMLInputElement).files?.[0];
      if (!f) return;
      try {
        load(JSON.parse(await f.text()));
      } catch (err) {
        mount(body, h("p", { class: "err", role: "alert" }, `Not a JSON GameRecord: ${err instanceof Error ? err.message : String(err)}`));
      }
    },
  });
  mount(top, h("label", null, "Open a GameRecord file (npm run play -- … --record out.json, or a table's record): ", file));

  const go = (k: number) => {
    if (!r) return;
    at = Math.max(0, Math.min(r.states.length - 1, k));
    draw();
  };
  const draw = () => {
    if (!r) return;
    const { game, states } = r;
    // Each decision as the chosen viewer may read it: the spectator never reads a seat's private events.
    const labels = r.events.map((e) => projectEvents(e, viewer)[0]?.text ?? "");
    const state = states[at];
    if (state === undefined) return;
    const view = game.view(state, viewer);
    const seats = game.config(state).seats as number;
    const actor = game.actor(state);
    const board = boardFor(game.info.id)({
      view,
      viewer,
      decisions: [],
      choose: () => undefined,
      seatName: (s) => `Seat ${s}`,
      memo: new Map(),
      redraw: draw,
    });
    mount(
      body,
      controls(at, states.length - 1, go),
      h(
        "div",
        { class: "row" },
        h("label", { for: "viewer" }, "View as "),
        h(
          "select",
          { id: "viewer", onchange: (e) => ((viewer = parseViewer((e.target as HTMLSelectElement).value)), draw()) },
          h("option", { value: "spectator", selected: viewer === "spectator" }, "spectator"),
          Array.from({ length: seats }, (_, s) => h("option", { value: String(s), selected: viewer === s }, `seat ${s}`)),
        ),
        h(
          "span",
          { class: "k" },
          ` · ${game.info.title} · seed ${r.record.seed} · ${r.verified} · `,
          actor === "terminal" ? "game over" : `seat ${actor} to decide`,
        ),
      ),
      h("p", { class: "now" }, at === 0 ? "the deal (no decision yet)" : `last decision: ${labels[at - 1]}`),
      h(
        "div",
        { class: "cols" },
        h("div", { class: "boardwrap", "data-state-hash": r.hashes[at], "data-view-hash": stateHash(view), "data-viewer": String(viewer) }, board),
        h("aside", null, h("h3", null, "Decisions and what they did"), replayLog(r, labels, at, viewer, go)),
      ),
    );
    body.querySelector(".replay-log .here")?.scrollIntoView({ block: "nearest" });
  };

  const onKey = (e: KeyboardEvent) => {
    if (!r || e.target instanceof HTMLSelectElement || (e.target instanceof HTMLInputElement && e.target.type !== "range")) return;
    const moves: Record<string, number> = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: r.states.length - 1, PageUp: at - 10, PageDown: at + 10 };
    const to = moves[e.key];
    if (to === undefined) return;
    e.preventDefault();
    go(to);
    root.querySelector<HTMLInputElement>("input.slider")?.focus();
  };
  document.addEventListener("keydown", onKey);
  if (table) {
    api
      .record(table)
      .then(load, (err) => mount(body, h("p", { class: "err", role: "alert" }, err instanceof ApiFailure ? `${err.code}: ${err.message}` : String(err))));
  }
  return () => document.removeEventListener("keydown", onKey);
}

/** First, back, the slider, forward, last, and where we are. */
function controls(at: number, last: number, go: (k: number) => void): HTMLElement {
  const slider = h("input", {
    type: "range",
    min: 0,
    max: last,
    value: at,
    class: "slider",
    "aria-label": "decision",
    "aria-valuetext": `after ${at} of ${last} decisions`,
    oninput: (e) => go(Number((e.target as HTMLInputElement).value)),
  });
  return h(
    "div",
    { class: "controls" },
    button("« first", () => go(0), { "aria-label": "first" }),
    button("◀", () => go(at - 1), { "aria-label": "back one decision" }),
    slider,
    button("▶", () => go(at + 1), { "aria-label": "forward one decision" }),
    button("last »", () => go(last), { "aria-label": "last" }),
    h("span", { class: "pos", "data-at": at }, `after ${at} of ${last} decisions`),
  );
}

/** Every decision as the viewer may read it, with its events; a click moves there. */
function replayLog(r: Replayed, labels: readonly string[], at: number, viewer: Viewer, go: (k: number) => void): HTMLElement {
  return h(
    "ol",
    { class: "log replay-log" },
    labels.map((l, i) =>
      eventItem(
        { seq: i, label: l, events: projectEvents(r.events[i] ?? [], viewer) },
        (c) => c,
        { class: i === at - 1 ? "here" : i >= at ? "later" : "", "aria-current": i === at - 1 ? "step" : null },
        () => go(i + 1),
      ),
    ),
  );
}

function parseViewer(v: string): Viewer {
  return v === "spectator" ? "spectator" : Number(v);
}
