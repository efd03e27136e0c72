import type { Speed, Timing } from "../core/interrupt/index.ts";
import { isJoker, suitOf, valueOf, type Card } from "./cards.ts";

/** The 19 actions of the Light format, in the catalog's order (index = action id). */
export const ACTIONS = [
  "End",
  "Charge",
  "Draw",
  "Attack",
  "Block",
  "DamageJudge",
  "NextGeneration",
  "SetBulwark",
  "SummonSoldier",
  "SummonHero",
  "SummonAce",
  "Mount",
  "Up",
  "Down",
  "Twist",
  "Counter",
  "DestroyBulwark",
  "Throwing",
  "Search",
] as const;
export type ActionName = (typeof ACTIONS)[number];
export const ACTION_INDEX: Readonly<Record<ActionName, number>> = Object.fromEntries(ACTIONS.map((a, i) => [a, i])) as Record<ActionName, number>;

/** A key card slot: suit (-1 any, 4 Joker only) and value range. */
export interface KeyPattern {
  readonly suit: number;
  readonly min: number;
  readonly max: number;
}
const JOKER_SUIT = 4;

export type TargetKind = "none" | "ownSoldierSameSuit" | "soldier" | "character" | "keyedRequest" | "bulwark";

export interface ActionSpec {
  readonly name: ActionName;
  readonly trigger: "direct" | "triggered";
  readonly speed: Speed;
  readonly timing: Timing;
  /** Key cards (★) in the order they are chosen; SetBulwark's face-down card is modelled as its one "key". */
  readonly keys: readonly KeyPattern[];
  readonly target: TargetKind;
  /** Costs: B = drive own charged bulwarks, L = take damage, D = discard hand cards. */
  readonly costB: number;
  readonly costL: number;
  readonly costD: number;
  /** Usage limit of once per turn. */
  readonly oncePerTurn: boolean;
}

const any = (min: number, max: number): KeyPattern => ({ suit: -1, min, max });
const of = (suit: number, min: number, max: number): KeyPattern => ({ suit, min, max });
function spec(
  name: ActionName,
  trigger: ActionSpec["trigger"],
  speed: Speed,
  timing: Timing,
  keys: KeyPattern[] = [],
  target: TargetKind = "none",
  cost = "",
  oncePerTurn = false,
): ActionSpec {
  const count = (c: string) => cost.split("").filter((x) => x === c).length;
  return { name, trigger, speed, timing, keys, target, costB: count("B"), costL: count("L"), costD: count("D"), oncePerTurn };
}

/** The catalog (docs/rules/blackpoker.md): trigger-speed-timing, key, target and cost per action. */
export const SPECS: Readonly<Record<ActionName, ActionSpec>> = {
  End: spec("End", "direct", "normal", "main"),
  Charge: spec("Charge", "triggered", "immediate", "main"),
  Draw: spec("Draw", "triggered", "normal", "main"),
  Attack: spec("Attack", "direct", "normal", "main", [], "none", "", true),
  Block: spec("Block", "triggered", "normal", "main"),
  DamageJudge: spec("DamageJudge", "triggered", "normal", "main"),
  NextGeneration: spec("NextGeneration", "triggered", "immediate", "quick"),
  SetBulwark: spec("SetBulwark", "direct", "immediate", "main", [{ suit: -1, min: 0, max: 13 }], "none", "L", true),
  SummonSoldier: spec("SummonSoldier", "direct", "normal", "main", [any(2, 10)], "none", "BL"),
  SummonHero: spec("SummonHero", "direct", "normal", "main", [any(11, 13)], "none", "BBL"),
  SummonAce: spec("SummonAce", "direct", "normal", "main", [any(1, 1)], "none", "L"),
  Mount: spec("Mount", "direct", "normal", "main", [any(1, 13)], "ownSoldierSameSuit", "BL"),
  Up: spec("Up", "direct", "normal", "quick", [of(1, 1, 10)], "soldier", "D"),
  Down: spec("Down", "direct", "normal", "quick", [of(0, 1, 10)], "soldier", "D"),
  Twist: spec("Twist", "direct", "normal", "quick", [of(2, 1, 10)], "character", "D"),
  Counter: spec("Counter", "direct", "normal", "quick", [of(3, 1, 10)], "keyedRequest", "D"),
  DestroyBulwark: spec("DestroyBulwark", "direct", "normal", "main", [of(1, 1, 13), of(2, 1, 13)], "bulwark"),
  Throwing: spec("Throwing", "direct", "normal", "main", [of(0, 1, 13), of(3, 1, 13)], "none"),
  Search: spec("Search", "direct", "immediate", "quick", [of(JOKER_SUIT, 0, 0)]),
};

/** The actions a player declares (the rest are triggered by the rules). */
export const DECLARABLE: readonly ActionName[] = ACTIONS.filter((a) => SPECS[a].trigger === "direct");

export function matchesKey(card: Card, p: KeyPattern): boolean {
  if (p.suit === JOKER_SUIT) return isJoker(card);
  if (p.suit >= 0 && suitOf(card) !== p.suit) return false;
  if (isJoker(card)) return p.suit === -1 && p.min === 0; // only SetBulwark's "any card" takes a Joker
  const v = valueOf(card);
  return v >= p.min && v <= p.max;
}
