/** Builds BlackPoker states directly for rule tests, and plays checked decisions on them. */
import { expect } from "vitest";
import { Rng } from "../../engine/core/index.ts";
import { startFlow, type CoreRequest } from "../../engine/core/interrupt/index.ts";
import {
  blackpoker,
  cardOf,
  JOKER_A,
  SPECS,
  type ActionName,
  type BlackpokerConfig,
  type BlackpokerDecision,
  type BlackpokerState,
  type BpPayload,
  type Unit,
} from "../../engine/blackpoker/index.ts";

/** "SA" = ♠A, "H10" = ♡10, "DQ" = ♢Q, "CK" = ♣K, "JK" = Joker. */
export function c(text: string): number {
  if (text === "JK") return JOKER_A;
  const suit = "SHDC".indexOf(text[0]!);
  const r = text.slice(1);
  const rank = r === "A" ? 1 : r === "J" ? 11 : r === "Q" ? 12 : r === "K" ? 13 : Number(r);
  if (suit < 0 || !(rank >= 1 && rank <= 13)) throw new Error(`bad card ${text}`);
  return cardOf(suit, rank);
}
export const cs = (...texts: string[]) => texts.map(c);

export interface UnitSpec {
  uid: number;
  cards: string[];
  bulwark?: boolean;
  charged?: boolean;
  mod?: number;
  entered?: number;
  /** Each card's owner when it is not the seat whose field holds the unit (its controller). */
  owners?: number[];
}
export interface PlayerSpec {
  /** Top first. */
  life?: string[];
  hand?: string[];
  grave?: string[];
  fog?: string[];
  field?: UnitSpec[];
}
export interface ScenarioSpec {
  config?: Partial<BlackpokerConfig>;
  turn?: number;
  turnPlayer?: number;
  chance?: number;
  attacked?: boolean;
  bulwarkSet?: boolean;
  p0?: PlayerSpec;
  p1?: PlayerSpec;
  /** Requests already on the stage, bottom first. */
  stage?: { controller: number; action: ActionName; keys?: string[]; target?: number }[];
}

const FILLER = ["S2", "S3", "D5", "D8", "C6", "C9"];

export function scenario(spec: ScenarioSpec): BlackpokerState {
  const parsed = blackpoker.parseConfig(spec.config ?? {});
  if (!parsed.ok) throw new Error(parsed.error.message);
  const unit = (u: UnitSpec): Unit => ({
    uid: u.uid,
    bulwark: u.bulwark ?? false,
    cards: cs(...u.cards),
    charged: u.charged ?? true,
    mod: u.mod ?? 0,
    entered: u.entered ?? 0,
    ...(u.owners ? { owners: u.owners } : {}),
  });
  const player = (p: PlayerSpec = {}) => ({
    life: cs(...(p.life ?? FILLER)).reverse(),
    hand: cs(...(p.hand ?? [])),
    grave: cs(...(p.grave ?? [])),
    fog: cs(...(p.fog ?? [])),
    field: (p.field ?? []).map(unit),
  });
  const players = [player(spec.p0), player(spec.p1)];
  const turnPlayer = spec.turnPlayer ?? 0;
  let rid = 0;
  const stage: CoreRequest<BpPayload>[] = (spec.stage ?? []).map((r) => ({
    controller: r.controller,
    speed: SPECS[r.action].speed,
    timing: SPECS[r.action].timing,
    payload: { rid: rid++, action: r.action, keys: cs(...(r.keys ?? [])), target: r.target ?? -1 },
  }));
  const maxUid = Math.max(-1, ...players.flatMap((z) => z.field.map((u) => u.uid)));
  return {
    config: parsed.value,
    flow: { ...startFlow<BpPayload>(2, turnPlayer), chancePlayer: spec.chance ?? turnPlayer, stage },
    players,
    turn: spec.turn ?? 2,
    attacked: spec.attacked ?? false,
    bulwarkSet: spec.bulwarkSet ?? false,
    combat: null,
    pending: null,
    nextUid: maxUid + 1,
    nextRid: rid,
    result: null,
    rng: Rng.seeded(1).save(),
  };
}

/** Applies decisions through the checked apply; fails the test on an illegal one. */
export function play(s: BlackpokerState, ...decisions: BlackpokerDecision[]): BlackpokerState {
  let state = s;
  for (const d of decisions) {
    const out = blackpoker.apply(state, d);
    if (!out.ok) {
      const legal = blackpoker
        .legal(state)
        .map((x) => JSON.stringify(x))
        .join(" ");
      throw new Error(`${JSON.stringify(d)} refused: ${out.error.message}\nlegal: ${legal}\n${blackpoker.render(state)}`);
    }
    state = out.state;
  }
  return state;
}

export const isLegal = (s: BlackpokerState, d: BlackpokerDecision): boolean => blackpoker.legal(s).some((x) => JSON.stringify(x) === JSON.stringify(d));
export const declarable = (s: BlackpokerState): string[] => blackpoker.legal(s).flatMap((d) => (d.kind === "declare" ? [d.action] : []));

export const PASS: BlackpokerDecision = { kind: "pass" };
export const declare = (action: ActionName): BlackpokerDecision => ({ kind: "declare", action });
export const key = (text: string): BlackpokerDecision => ({ kind: "chooseCard", card: c(text) });
export const target = (unit: number): BlackpokerDecision => ({ kind: "targetUnit", unit });
export const payB = (unit: number): BlackpokerDecision => ({ kind: "payBulwark", unit });
export const payD = (text: string): BlackpokerDecision => ({ kind: "payDiscard", card: c(text) });

export const stageNames = (s: BlackpokerState) => s.flow.stage.map((r) => r.payload.action);
export const unitOf = (s: BlackpokerState, p: number, uid: number) => s.players[p]!.field.find((u) => u.uid === uid);
export const labels = (cards: readonly number[]) => cards.slice().sort((a, b) => a - b);

export function expectCards(actual: readonly number[], ...texts: string[]): void {
  expect(labels(actual)).toEqual(labels(cs(...texts)));
}

export function config(raw: Record<string, unknown> = {}): BlackpokerConfig {
  const parsed = blackpoker.parseConfig(raw);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}
