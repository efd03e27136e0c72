import { h } from "../dom.ts";
import { blackpokerBoard } from "./blackpoker.ts";
import type { Board, BoardCtx } from "./common.ts";
import { dcgBoard } from "./dcg.ts";
import { sevensBoard } from "./sevens.ts";
import { shephyBoard } from "./shephy.ts";

export type { Board, BoardCtx };

const BOARDS: Readonly<Record<string, Board>> = { sevens: sevensBoard, dcg: dcgBoard, shephy: shephyBoard, blackpoker: blackpokerBoard };

/** The board for a game; a game without one shows its view as data (the decision list still plays it). */
export function boardFor(game: string): Board {
  return BOARDS[game] ?? ((ctx) => h("section", { class: "board" }, h("pre", null, JSON.stringify(ctx.view, null, 1))));
}
