/**
 * Nothing any channel sends names what its receiver may not know (test/live/leak-channels.ts):
 * whole games of every game on real tables (40 of sevens and BlackPoker, 200 of Shephy, each set
 * checked to cover every case 200 games did), through the server's own routes and table code
 * with in-process channels (seats, spectators from the start and joining late, the token-less log
 * route, the HTTP spectate route, a replay table of each record watched by every viewer), every
 * message checked for exactness (A), re-dealt behind its viewer's back through the table code (B),
 * the events re-dealt (C) and, for dcg, scanned for the names of cards the viewer cannot see (D).
 * A few games per game go over real WebSockets and HTTP as well. dcg's games are in
 * leak-all-channels-dcg.test.ts (a file of their own, so they run beside these).
 */
import { describe, expect, it } from "vitest";
import { IDS, leakProblems, newTally, playOverSockets, wholeGamesTest } from "./leak-channels.ts";
import { startLive } from "./helpers.ts";

const OVER_SOCKETS = 5;

describe("every byte every channel sends is its receiver's to know", () => {
  // dcg's games run in their own file (leak-all-channels-dcg.test.ts), beside these.
  for (const id of IDS.filter((g) => g !== "dcg")) wholeGamesTest(id);

  it(`${OVER_SOCKETS} games of each game over real WebSockets and HTTP: the same checks on the bytes received`, async () => {
    const live = await startLive({ workers: 0 });
    const problems: string[] = [];
    const tally = newTally();
    try {
      for (const id of IDS) {
        for (let seed = 1; seed <= OVER_SOCKETS; seed++) {
          const played = await playOverSockets(live, id, seed);
          problems.push(...leakProblems(played, tally).map((p) => `${id} seed ${seed}: ${p}`));
        }
      }
    } finally {
      await live.close();
    }
    expect(problems.slice(0, 5)).toEqual([]);
    expect(tally.messages).toBeGreaterThan(IDS.length * OVER_SOCKETS * 10);
  }, 600_000);
});
