import type { CoreRequest } from "../core/interrupt/index.ts";
import { SPECS } from "./actions.ts";
import { cardLabel, type Card } from "./cards.ts";
import type { BlackpokerDecision, BlackpokerState, BpPayload, Pending, Unit } from "./state.ts";
import { findUnit, sizeOf, zonesOf } from "./zones.ts";

const cards = (cs: readonly Card[]) => (cs.length ? cs.map(cardLabel).join(" ") : "-");

function unitLabel(u: Unit, reveal: boolean): string {
  // Only when some card is owned by another seat than the controller (the field's seat).
  const state = `${u.charged ? "charged" : "driven"}${u.owners ? ` owners [${u.owners.join(",")}]` : ""}`;
  if (u.bulwark) return `#${u.uid} bulwark[${reveal ? cards(u.cards) : "??"}] ${state}`;
  const mod = u.mod ? ` (${u.mod > 0 ? "+" : ""}${u.mod})` : "";
  return `#${u.uid} soldier[${cards(u.cards)}] size ${sizeOf(u)}${mod} ${state}`;
}

function unitRef(s: BlackpokerState, uid: number): string {
  const f = findUnit(s, uid);
  if (f === null) return `#${uid}`;
  return f.unit.bulwark ? `seat ${f.controller}'s bulwark #${uid}` : `seat ${f.controller}'s soldier #${uid} [${cards(f.unit.cards)}]`;
}

export function requestLabel(s: BlackpokerState, r: CoreRequest<BpPayload>, hideBulwarkCard = true): string {
  const { action, keys, target, rid } = r.payload;
  const spec = SPECS[action];
  let text = `r${rid} ${action} by seat ${r.controller} (${spec.speed}/${spec.timing})`;
  if (keys.length) text += ` keys ${action === "SetBulwark" && hideBulwarkCard ? "??" : cards(keys)}`;
  if (target >= 0) text += spec.target === "keyedRequest" ? ` -> r${target}` : ` -> ${unitRef(s, target)}`;
  return text;
}

/** A readable board for the CLI: both sides, then the stage (top first), flow and pending choice. */
export function renderBlackpoker(s: BlackpokerState): string {
  const lines: string[] = [];
  const f = s.flow;
  lines.push(`BlackPoker turn ${s.turn}  turn player: seat ${f.turnPlayer}  chance: seat ${f.chancePlayer}  passed: [${f.passed.join(",")}]`);
  for (let p = 0; p < s.players.length; p++) {
    const z = zonesOf(s, p);
    lines.push(`seat ${p}: Life ${z.life.length}  hand(${z.hand.length}) ${cards(z.hand)}`);
    lines.push(`  field: ${z.field.length ? z.field.map((u) => unitLabel(u, true)).join(" | ") : "-"}`);
    lines.push(`  grave: ${cards(z.grave)}  fog: ${cards(z.fog)}`);
  }
  lines.push(`STAGE (top first, ${f.stage.length}):`);
  if (f.stage.length === 0) lines.push("  (empty)");
  f.stage
    .slice()
    .reverse()
    .forEach((r, i) => lines.push(`  ${i === 0 ? "top ->" : "      "} ${requestLabel(s, r)}`));
  if (f.resolving) lines.push(`resolving: ${requestLabel(s, f.resolving)}`);
  if (s.combat) {
    const { attackers, blockers, blocked } = s.combat;
    const blocks = blockers.map((b, i) => `#${b}->#${blocked[i]}`).join(" ");
    lines.push(`combat: attackers ${attackers.map((a) => `#${a}`).join(" ")}${blocks ? `  blocks ${blocks}` : ""}`);
  }
  lines.push(`used this turn: attack ${s.attacked ? "yes" : "no"}, set bulwark ${s.bulwarkSet ? "yes" : "no"}`);
  if (s.result !== null) lines.push(`GAME OVER: returns [${s.result.join(", ")}]`);
  else if (s.pending !== null) lines.push(`pending: ${pendingLabel(s, s.pending)}`);
  else if (f.choice !== undefined) {
    const options = f.choice.options
      .map((i) => {
        const r = f.buffer[i];
        return r === undefined ? `(no request ${i})` : requestLabel(s, r);
      })
      .join(" | ");
    lines.push(`seat ${f.choice.seat} chooses which triggered request to take first: ${options}`);
  } else lines.push(`seat ${f.chancePlayer} holds the chance: pass or request`);
  return lines.join("\n");
}

function pendingLabel(s: BlackpokerState, p: Pending): string {
  switch (p.kind) {
    case "compose":
      return `seat ${p.seat} composes ${p.action} (keys ${cards(p.keys)}${p.target >= 0 ? `, target ${p.target}` : ""}${p.bulwarks.length ? `, B #${p.bulwarks.join(" #")}` : ""})`;
    case "attackers":
      return `seat ${p.seat} chooses attackers (so far ${p.chosen.map((u) => `#${u}`).join(" ") || "none"})`;
    case "blockers":
      return `seat ${p.seat} assigns blockers (so far ${p.blockers.map((b, i) => `#${b}->#${p.blocked[i]}`).join(" ") || "none"})`;
    case "endDiscard":
      return `seat ${p.seat} discards down to 7`;
    case "twist":
      return `seat ${p.seat} twists #${p.uid}: charged or driven`;
    case "drawMore":
      return `seat ${p.seat} may draw one more`;
    case "search":
      return `seat ${p.seat} takes a card from Life`;
  }
}

export function describeBlackpoker(s: BlackpokerState, d: BlackpokerDecision): string {
  const seat = s.pending !== null ? s.pending.seat : (s.flow.choice?.seat ?? s.flow.chancePlayer);
  const who = `seat ${seat}`;
  const composing = s.pending !== null && s.pending.kind === "compose" ? s.pending.action : "";
  switch (d.kind) {
    case "pass":
      return `${who} passes`;
    case "declare":
      return `${who} declares ${d.action}`;
    case "chooseCard":
      return composing === "SetBulwark" ? `${who} sets a card face down as a bulwark` : `${who} uses key ${cardLabel(d.card)} for ${composing}`;
    case "targetUnit":
      return `${who} targets ${unitRef(s, d.unit)} with ${composing}`;
    case "targetRequest": {
      const r = s.flow.stage.find((x) => x.payload.rid === d.request);
      return `${who} counters ${r ? requestLabel(s, r) : `r${d.request}`}`;
    }
    case "payBulwark":
      return `${who} drives bulwark #${d.unit} (cost B)`;
    case "payDiscard":
      return `${who} discards ${cardLabel(d.card)} (cost D)`;
    case "selectAttacker":
      return `${who} attacks with ${unitRef(s, d.unit)}`;
    case "finishAttack":
      return `${who} ends the attacker choice`;
    case "assignBlocker":
      return `${who} blocks #${d.attacker} with ${unitRef(s, d.unit)}`;
    case "finishBlock":
      return `${who} ends the block assignment`;
    case "discard":
      return `${who} discards ${cardLabel(d.card)} at End`;
    case "twist":
      return `${who} twists the target to ${d.charged ? "charged" : "driven"}`;
    case "drawMore":
      return `${who} ${d.more ? "draws one more" : "stops drawing"}`;
    case "chooseTrigger": {
      const r = s.flow.buffer.find((x) => x.payload.rid === d.request);
      return `${who} takes ${r ? requestLabel(s, r) : `r${d.request}`} first from its triggered requests`;
    }
    case "searchTake":
      return `${who} searches Life for ${cardLabel(d.card)}`;
  }
}
