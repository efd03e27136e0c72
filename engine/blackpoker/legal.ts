import type { Actor, Expectation } from "../core/index.ts";
import { composeOptions, declarable } from "./compose.ts";
import { blockOptions, eligibleAttackers } from "./resolve.ts";
import type { BlackpokerDecision, BlackpokerState } from "./state.ts";
import { zonesOf } from "./zones.ts";
import { must } from "../core/index.ts";

const PASS: BlackpokerDecision = { kind: "pass" };
const FINISH_ATTACK: BlackpokerDecision = { kind: "finishAttack" };
const FINISH_BLOCK: BlackpokerDecision = { kind: "finishBlock" };

/** The pending choice's player, else the player choosing its trigger order, else the chance holder; terminal once decided. */
export function blackpokerActor(s: BlackpokerState): Actor {
  if (s.result !== null) return "terminal";
  if (s.pending !== null) return s.pending.seat;
  return s.flow.choice !== undefined ? s.flow.choice.seat : s.flow.chancePlayer;
}

/**
 * Legal decisions in a stable order. At the chance: pass (except for the turn player on an empty
 * stage: End is always there, and a pass would only hand the chance back, the RL guard of the
 * rules doc), then declarable actions in catalog order. Otherwise the pending choice's options.
 */
export function blackpokerLegal(s: BlackpokerState): BlackpokerDecision[] {
  if (s.result !== null) return [];
  const p = s.pending;
  if (p === null && s.flow.choice !== undefined) {
    // [6-5-2]/[6-10-2]: one option per different triggered request, in trigger order.
    const buffer = s.flow.buffer;
    return s.flow.choice.options.map((i): BlackpokerDecision => ({
      kind: "chooseTrigger",
      request: must(buffer[i], "blackpoker: a triggered request the choice offers").payload.rid,
    }));
  }
  if (p === null) {
    const seat = s.flow.chancePlayer;
    const out: BlackpokerDecision[] = [];
    if (!(seat === s.flow.turnPlayer && s.flow.stage.length === 0)) out.push(PASS);
    for (const action of declarable(s, seat)) out.push({ kind: "declare", action });
    return out;
  }
  switch (p.kind) {
    case "compose":
      return composeOptions(s, p);
    case "attackers": {
      const last = p.chosen.at(-1) ?? -1;

      const out: BlackpokerDecision[] = eligibleAttackers(s, p.seat)
        .filter((u) => u.uid > last)
        .map((u) => ({ kind: "selectAttacker", unit: u.uid }));
      out.push(FINISH_ATTACK);
      return out;
    }
    case "blockers": {
      const out: BlackpokerDecision[] = blockOptions(s, p.seat, p.blockers, p.blocked).map(([unit, attacker]) => ({
        kind: "assignBlocker",
        unit,
        attacker,
      }));
      out.push(FINISH_BLOCK);
      return out;
    }
    case "endDiscard":
      return zonesOf(s, p.seat)
        .hand.slice()
        .sort((a, b) => a - b)
        .map((card) => ({ kind: "discard", card }));
    case "twist":
      return [
        { kind: "twist", charged: false },
        { kind: "twist", charged: true },
      ];
    case "drawMore":
      return [
        { kind: "drawMore", more: false },
        { kind: "drawMore", more: true },
      ];
    case "search":
      return zonesOf(s, p.seat)
        .life.slice()
        .sort((a, b) => a - b)
        .map((card) => ({ kind: "searchTake", card }));
  }
}

/** No deadlines in BlackPoker. */
export function blackpokerExpectation(_s: BlackpokerState): Expectation<BlackpokerDecision> | null {
  return null;
}
