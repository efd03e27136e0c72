import type { Viewer } from "../core/index.ts";
import type { BattleData, Seat } from "./battle-data.ts";
import { cellName, cellOf, COLS, ROWS } from "./board.ts";
import type { Decision } from "./decision.ts";
import { actorOf } from "./flow.ts";
import { effectiveAttack } from "./params.ts";
import type { Pool } from "./pool.ts";
import type { DcgView } from "./view.ts";
import { cardIn } from "./battle-data.ts";
import { defIn } from "./pool.ts";

/** Seat names as every dcg text writes them: seat 0 is the Host, seat 1 the Guest. */
export const SEAT_NAME = ["Host", "Guest"] as const;

function short(pool: Pool, def: number): string {
  return defIn(pool, def)
    .name.replace(/[^A-Za-z]/g, "")
    .slice(0, 4);
}

export function cardName(s: BattleData, pool: Pool, id: number): string {
  return id < 0 ? "?" : defIn(pool, cardIn(s, id).def).name;
}

/** The whole board (omniscient: the CLI's and the debugger's picture, not a player's view). */
export function renderBattle(s: BattleData, pool: Pool): string {
  const lines: string[] = [];
  const st = s.state;
  const phase = st.kind === "Strategy" ? "strategy time" : `${SEAT_NAME[s.turnPlayer]}'s turn`;
  const acting = s.finished ? "" : `  ${SEAT_NAME[actorOf({ s })]} to act`;
  lines.push(
    `turn ${s.turn}/${s.cfg.turnLimit}  ${phase}  state ${st.kind}${acting}${s.finished ? `  FINISHED: ${s.winner === -1 ? "draw" : `${SEAT_NAME[s.winner]} wins`}` : ""}`,
  );
  const pl = (seat: 0 | 1) => {
    const p = s.players[seat];
    return `${SEAT_NAME[seat]}${seat === s.first ? "*" : " "} HP ${p.hp}  MP ${p.mp}  attacks ${p.attacks}  hand ${s.hands[seat].length}  book ${s.books[seat].length}  grave ${s.graves[seat].length}`;
  };
  lines.push(pl(1));
  lines.push(`     ${Array.from({ length: COLS }, (_, x) => `    ${"ABCDE"[x]}    `).join("")}`);
  for (let y = ROWS - 1; y >= 0; y--) {
    let row = `  ${y}${y === 3 ? "-" : " "} `;
    for (let x = 0; x < COLS; x++) {
      const cell = cellOf(x, y);
      const u = s.cells[cell] ?? -1;
      const f = s.feints[cell] ?? -1;
      let text = ".";
      if (u >= 0) {
        const c = cardIn(s, u);
        const def = defIn(pool, c.def);
        const atk = def.kind === "rubric" ? `${effectiveAttack(s, pool, u)}/` : "";
        text = `${c.owner === 0 ? "+" : "-"}${short(pool, c.def)}${atk}${c.life}${c.ailment === "poison" ? "*" : ""}`;
      }
      if (f >= 0) text += cardIn(s, f).owner === 0 ? "^" : "v";
      row += text.padStart(9, " ") + " ";
    }
    lines.push(row);
  }
  lines.push(pl(0));
  for (const seat of [0, 1] as const) {
    lines.push(`${SEAT_NAME[seat]} hand: ${s.hands[seat].map((id) => cardName(s, pool, id)).join(", ") || "-"}`);
  }
  lines.push("(+ Host unit, - Guest unit, atk/life, * poisoned, ^ Host feint, v Guest feint)");
  return lines.join("\n");
}

export function describeDecision(s: BattleData, pool: Pool, d: Decision, seat: number): string {
  const who = SEAT_NAME[seat as 0 | 1];
  const name = (id: number) => cardName(s, pool, id);
  const at = (id: number) => cellName(cardIn(s, id).cell);
  switch (d.kind) {
    case "strategyMove":
      return `${who} places strategy rubric ${name(d.card)} at ${cellName(d.cell)}`;
    case "strategyConfirm":
      return `${who} confirms the strategy placement`;
    case "drawOrCharge":
      return d.charge ? `${who} charges 1 MP` : `${who} draws a card`;
    case "summon":
      return `${who} summons ${name(d.card)} at ${cellName(d.cell)}`;
    case "feint":
      return `${who} sets feint ${name(d.card)} face down at ${cellName(d.cell)}`;
    case "moveDeclare":
      return `${who} declares a move: ${name(d.card)} ${at(d.card)} -> ${cellName(d.cell)}`;
    case "attack":
      return `${who} attacks ${name(s.cells[d.cell] ?? -1)} at ${cellName(d.cell)} with ${name(d.card)} at ${at(d.card)}`;
    case "direct":
      return `${who} attacks directly with ${name(d.card)} at ${at(d.card)}`;
    case "turnFinish":
      return `${who} finishes the turn`;
    case "reactNone":
      return `${who} does not react`;
    case "reactSummon":
      return `${who} reacts by summoning ${name(d.card)} at ${cellName(d.cell)}`;
    case "reactFeint":
      return `${who} reacts with a feint (${name(d.card)}) at ${cellName(d.cell)}`;
    case "moveRetry":
      return d.cell < 0 ? `${who} cancels the move` : `${who} retries the move to ${cellName(d.cell)}`;
    case "feintDeclare":
      return `${who} declares feint ${s.state.kind === "FeintDeclare" ? name(s.state.feint) : ""}`;
    case "feintPass":
      return `${who} lets the feint pass`;
    case "forceFinish":
      return `${who} leaves the battle`;
  }
}

/**
 * Who must act now and why, for the viewer: "Your reaction: Host moves Raider B2 -> B3",
 * "Guest reacts to your move", "Strategy time: Guest places strategy rubrics". Reaction and feint
 * windows name the seat that decides, not the turn's player. Reads only the view.
 */
export function whoActs(v: DcgView, pool: Pool, names: readonly [string, string] = SEAT_NAME): string {
  const me: Viewer = v.viewer;
  const Name = (seat: Seat) => (seat === me ? "You" : names[seat]);
  if (v.finished || v.actor === "terminal") return `Battle over: ${v.winner === -1 ? "a draw" : v.winner === me ? "you win" : `${names[v.winner]} wins`}`;
  const actor = v.actor;
  const mine = actor === me;
  const st = v.state;
  const unit = (id: number) => {
    const c = v.cards[id];
    return c ? defIn(pool, c.def).name : "a unit";
  };
  switch (st.kind) {
    case "Strategy":
      return mine ? "Strategy time: your placement (place your strategy rubrics, then confirm)" : `Strategy time: ${names[actor]} places strategy rubrics`;
    case "Draw":
      return mine ? "Your turn: draw a card or charge 1 MP" : `${names[actor]}'s turn: draw or charge`;
    case "Main":
      return mine ? "Your turn: summon, move, attack, or end the turn" : `${names[actor]}'s turn`;
    case "MoveDeclare": {
      const move = `${unit(st.card)} ${cellName(st.from)} -> ${cellName(st.to)}`;
      if (mine) return `Your reaction: ${names[v.turnPlayer]} moves ${move}; react or let it pass`;
      return `${Name(actor)} reacts to ${v.turnPlayer === me ? "your" : `${names[v.turnPlayer]}'s`} move (${move})`;
    }
    case "MoveRetry":
      return mine ? "Your move was blocked: choose another cell or cancel it" : `${names[actor]} picks another cell for the blocked move`;
    case "FeintDeclare":
      return mine
        ? `Your feint window: declare your feint at ${cellName(st.cell)} or let it pass`
        : `${names[actor]} decides whether to spring the feint at ${cellName(st.cell)}`;
    case "BattleFinish":
      return "Battle over";
  }
}
