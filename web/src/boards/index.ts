import { h } from "../dom.ts";
import { blackpokerBoard } from "./blackpoker.ts";
import type { Board, BoardCtx, DecisionOption } from "./common.ts";
import { dcgBoard, dcgHeadline, dcgPrimary } from "./dcg.ts";
import { sevensBoard } from "./sevens.ts";
import { shephyBoard } from "./shephy.ts";

export type { Board, BoardCtx };

const BOARDS: Readonly<Record<string, Board>> = { sevens: sevensBoard, dcg: dcgBoard, shephy: shephyBoard, blackpoker: blackpokerBoard };

/** The board for a game; a game without one shows its view as data (the decision list still plays it). */
export function boardFor(game: string): Board {
  return BOARDS[game] ?? ((ctx) => h("section", { class: "board" }, h("pre", null, JSON.stringify(ctx.view, null, 1))));
}

/** A game's passive decisions for the always-visible action bar, or null: the game lists its decisions as before. */
export type PrimaryPicker = (decisions: readonly DecisionOption[]) => { label: string; option: DecisionOption }[];
const PRIMARY: Readonly<Record<string, PrimaryPicker>> = { dcg: dcgPrimary };
export function primaryFor(game: string): PrimaryPicker | null {
  return PRIMARY[game] ?? null;
}

/** Who must act now in the game's own words (a reaction window names the reacting seat), or null. */
const HEADLINE: Readonly<Record<string, (view: unknown) => string>> = { dcg: dcgHeadline };
export function headlineFor(game: string): ((view: unknown) => string) | null {
  return HEADLINE[game] ?? null;
}
