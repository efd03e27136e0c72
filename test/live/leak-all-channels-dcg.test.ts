/**
 * The all-channel leak test (leak-all-channels.test.ts) for dcg: 40 whole games (every game length
 * with every book pair, checked to cover every channel, decision cause, event kind and hidden zone
 * 200 games did), the longest part, in a file of its own so it runs beside the other games'.
 */
import { describe } from "vitest";
import { wholeGamesTest } from "./leak-channels.ts";

describe("every byte every channel sends is its receiver's to know", () => {
  wholeGamesTest("dcg");
});
