/** A minimal game on the kernel contract for kernel and runner tests: race to a target, 2 seats. */
import { applyChecked, asObject, publicEvent, fail, intField, ok, Rng, type Game, type RngState } from "../../engine/core/index.ts";

export interface TinyConfig {
  readonly seats: number;
  readonly target: number;
  readonly timeoutMs: number | null;
}
export interface TinyState {
  readonly config: TinyConfig;
  readonly total: number;
  readonly turn: number;
  readonly bonus: number; // hidden chance element, drawn from the state rng
  readonly rng: RngState;
}
export type TinyDecision = { kind: "add"; n: 1 | 2 } | { kind: "stall" };

const legal = (s: TinyState): TinyDecision[] =>
  s.total >= s.config.target
    ? []
    : [
        { kind: "add", n: 1 },
        { kind: "add", n: 2 },
      ];
const actor = (s: TinyState) => (s.total >= s.config.target ? ("terminal" as const) : s.turn % s.config.seats);
const expectation = (s: TinyState) =>
  s.config.timeoutMs === null || actor(s) === "terminal"
    ? null
    : { seat: actor(s) as number, timeoutMs: s.config.timeoutMs, defaultDecision: { kind: "stall" } as TinyDecision };
function applyTrusted(s: TinyState, d: TinyDecision): TinyState {
  const rng = Rng.load(s.rng);
  const add = d.kind === "stall" ? 0 : d.n + (rng.int(4) === 0 ? s.bonus : 0);
  return { ...s, total: s.total + add, turn: s.turn + 1, rng: rng.save() };
}

export const tiny: Game<TinyState, TinyDecision, unknown, TinyConfig> = {
  info: { id: "tiny", version: "1", title: "Tiny", minSeats: 2, maxSeats: 2, defaultSeats: 2, zeroSum: true },
  parseConfig(raw) {
    const o = asObject(raw, ["seats", "target", "timeoutMs"]);
    if (!o.ok) return o;
    const seats = intField(o.value, "seats", 2, 2, 2);
    if (!seats.ok) return seats;
    const target = intField(o.value, "target", 10, 1, 100);
    if (!target.ok) return target;
    const t = o.value.timeoutMs;
    if (t !== undefined && t !== null && typeof t !== "number") return fail("invalid_config", "timeoutMs must be a number", "timeoutMs");
    return ok({ seats: seats.value, target: target.value, timeoutMs: (t as number | undefined) ?? null });
  },
  setup(config, seed) {
    const rng = Rng.seeded(seed);
    return { config, total: 0, turn: 0, bonus: 1 + rng.int(3), rng: rng.save() };
  },
  config: (s) => s.config,
  actor,
  legal,
  apply: (s, d) => applyChecked(s, d, actor, legal, applyTrusted, expectation),
  applyTrusted,
  returns: (s) => (actor(s) === "terminal" ? ((s.turn - 1) % 2 === 0 ? [1, -1] : [-1, 1]) : [0, 0]),
  view: (s) => ({ total: s.total, turn: s.turn }),
  expectation,
  maxDecisions: (c) => (c.timeoutMs === null ? c.target : 1000),
  determinize: (v, _seat, rng) => {
    const seen = v as { total: number; turn: number };
    return { config: { seats: 2, target: 10, timeoutMs: null }, total: seen.total, turn: seen.turn, bonus: 1 + rng.int(3), rng: rng.save() };
  },
  describe: (_s, d) => (d.kind === "add" ? `add ${d.n}` : "stall"),
  events: (s, d) => [publicEvent("decision", s.turn % s.config.seats, d.kind === "add" ? `add ${d.n}` : "stall")],
  render: (s) => `total ${s.total}`,
};
