/**
 * A channel's syncs are limited (LIVE_LIMITS.syncBurst at once, then syncsPerSecond), on the
 * server's injected clock: a flood of syncs gets `rate_limited` answers that cost no frame, and the
 * allowance comes back as the clock moves. Seat and spectator channels alike.
 */
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../agents/clock.ts";
import { LIVE_LIMITS } from "../../env/live/protocol.ts";
import { sevensSeatChannel, sevensSpectatorChannel } from "../fixtures/live-channels.ts";
import { Client, clientsForFile, liveForFile } from "./helpers.ts";

const clock = new ManualClock();
const server = liveForFile({ liveClock: clock });
const open = clientsForFile();

/** Sends `n` syncs at once and waits for their `n` answers: how many were frames and how many refusals. */
async function flood(c: Client, n: number, frameType: string): Promise<{ frames: number; limited: number; other: string[] }> {
  const from = c.messages.length;
  for (let i = 0; i < n; i++) c.socket.send(JSON.stringify({ type: "sync", since: 0 }));
  await c.next(() => c.messages.length - from >= n);
  const answers = c.messages.slice(from, from + n);
  return {
    frames: answers.filter((m) => m.type === frameType).length,
    limited: answers.filter((m) => m.type === "error" && m.error.code === "rate_limited").length,
    other: answers.filter((m) => m.type !== frameType && !(m.type === "error" && m.error.code === "rate_limited")).map((m) => JSON.stringify(m)),
  };
}

describe("sync flood", () => {
  it("a seat: the burst is answered with frames, the rest with rate_limited; a second later syncsPerSecond more are answered", async () => {
    const { c } = await sevensSeatChannel(server, open, 2);
    expect(await flood(c, LIVE_LIMITS.syncBurst + 15, "frame")).toEqual({ frames: LIVE_LIMITS.syncBurst, limited: 15, other: [] });
    clock.advance(1000);
    expect(await flood(c, LIVE_LIMITS.syncsPerSecond + 5, "frame")).toEqual({ frames: LIVE_LIMITS.syncsPerSecond, limited: 5, other: [] });
    const refusal = c.messages.find((m) => m.type === "error");
    expect(refusal.error.message).toMatch(/^too many syncs: at most 20 at once, then 10 a second/);
    // The channel stays open and still plays.
    expect(c.closed).toBeNull();
  });

  it("a spectator: the same allowance, its own", async () => {
    const w = await sevensSpectatorChannel(server, open, 3);
    expect(await flood(w, LIVE_LIMITS.syncBurst + 3, "spectate")).toEqual({ frames: LIVE_LIMITS.syncBurst, limited: 3, other: [] });
    clock.advance(10_000);
    // The allowance refills up to the burst, no further.
    expect(await flood(w, LIVE_LIMITS.syncBurst + 1, "spectate")).toEqual({ frames: LIVE_LIMITS.syncBurst, limited: 1, other: [] });
  });
});
