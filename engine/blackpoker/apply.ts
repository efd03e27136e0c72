import { chooseTrigger, pass } from "../core/interrupt/index.ts";
import { composeWith, declare } from "./compose.ts";
import { discardResolvingKeys, finishAttack, finishBlock, finishEnd, resume, rulesFor, searchTake } from "./resolve.ts";
import type { BlackpokerDecision, BlackpokerState } from "./state.ts";
import { draw, updateUnit, withPlayer, findUnit, zonesOf } from "./zones.ts";

const HAND_LIMIT = 7;

/** The trusted apply: `d` must be legal in `s`. Never mutates `s`. */
export function applyBlackpoker(s: BlackpokerState, d: BlackpokerDecision): BlackpokerState {
  const p = s.pending;
  switch (d.kind) {
    case "pass":
      return pass(s, rulesFor(s));
    case "declare":
      return declare(s, s.flow.chancePlayer, d.action);
    case "chooseCard":
    case "targetUnit":
    case "targetRequest":
    case "payBulwark":
    case "payDiscard":
      return p !== null && p.kind === "compose" ? composeWith(s, p, d) : s;
    case "selectAttacker":
      return p !== null && p.kind === "attackers" ? { ...s, pending: { ...p, chosen: p.chosen.concat(d.unit) } } : s;
    case "finishAttack": {
      if (p === null || p.kind !== "attackers") return s;
      const [state, triggered] = finishAttack(s, p.seat, p.chosen);
      return resume(state, triggered);
    }
    case "assignBlocker":
      if (p === null || p.kind !== "blockers") return s;
      return { ...s, pending: { ...p, blockers: p.blockers.concat(d.unit), blocked: p.blocked.concat(d.attacker) } };
    case "finishBlock": {
      if (p === null || p.kind !== "blockers") return s;
      const [state, triggered] = finishBlock(s, p.seat, p.blockers, p.blocked);
      return resume(state, triggered);
    }
    case "discard": {
      if (p === null || p.kind !== "endDiscard") return s;
      const z = zonesOf(s, p.seat);
      const state = withPlayer(s, p.seat, { hand: z.hand.filter((c) => c !== d.card), grave: z.grave.concat(d.card) });
      if (zonesOf(state, p.seat).hand.length > HAND_LIMIT) return state;
      const [ended, triggered] = finishEnd({ ...state, pending: null }, p.seat);
      return resume(ended, triggered);
    }
    case "twist": {
      if (p === null || p.kind !== "twist") return s;
      const found = findUnit(s, p.uid);
      const state = found === null ? s : updateUnit(s, found.controller, p.uid, { charged: d.charged });
      return resume(discardResolvingKeys(state));
    }
    case "drawMore":
      if (p === null || p.kind !== "drawMore") return s;
      return resume(d.more ? draw(s, p.seat, 1) : s);
    case "chooseTrigger":
      return chooseTrigger(
        s,
        s.flow.buffer.findIndex((r) => r.payload.rid === d.request),
        rulesFor(s),
      );
    case "searchTake":
      if (p === null || p.kind !== "search") return s;
      return resume(discardResolvingKeys(searchTake(s, p.seat, d.card)));
  }
}
