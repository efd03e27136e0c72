import type { ComputerOptions } from "./computer.ts";
import { gameLevels } from "./evaluators/index.ts";

/** Difficulty levels for game builders (`computer:level=N`); level 3 is the default computer. */
export type ComputerLevel = 1 | 2 | 3 | 4 | 5;
export const MIN_LEVEL = 1;
export const MAX_LEVEL = 5;
export const DEFAULT_LEVEL: ComputerLevel = 3;

/** What a level sets: search size (samples, playouts, beam) and the share of random blunders. */
export type LevelPreset = Pick<ComputerOptions, "dets" | "rollouts" | "beam" | "blunder">;
export type LevelTable = Readonly<Record<ComputerLevel, LevelPreset>>;

/**
 * The levels of games that register no table of their own (agents/evaluators/index.ts): the same
 * one-ply search with more samples and playouts per level, and random blunders at levels 1 and 2.
 */
export const COMPUTER_LEVELS: LevelTable = {
  1: { dets: 1, rollouts: 1, beam: 2, blunder: 0.5 },
  2: { dets: 2, rollouts: 1, beam: 4, blunder: 0.15 },
  3: { dets: 4, rollouts: 1, beam: 8, blunder: 0 },
  4: { dets: 8, rollouts: 2, beam: 12, blunder: 0 },
  5: { dets: 16, rollouts: 4, beam: 16, blunder: 0 },
};

/** The level table the computer uses in a game: the game's own (a planner's sizes) or the generic one. */
export function computerLevels(gameId: string | undefined): LevelTable {
  return (gameId === undefined ? undefined : gameLevels(gameId)) ?? COMPUTER_LEVELS;
}
