/**
 * A seat's holder re-keys it: POST .../join with the seat's token gives the seat a token of its
 * own, and the old one opens nothing any more. The creator of a table gets every person's token
 * (POST /v1/tables), and a seat's frame read over HTTP with it neither closes the holder's
 * WebSocket nor tells anybody; before re-keying existed, a person invited to a table could not
 * stop its creator from reading their seat, hidden cards included, for the whole game
 * (docs/live.md, "Joining a seat").
 */
import { afterEach, describe, expect, it } from "vitest";
import { Client, http, startLive, tempDir, type Live } from "./helpers.ts";

const lives: Live[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const l of lives.splice(0)) await l.close();
});

const frame = (l: Live, table: string, seat: number, token: string) =>
  http(l.base, "GET", `/v1/tables/${table}/seats/${seat}/frame`, undefined, { "x-seat-token": token });

describe("re-keying a seat", () => {
  it("the holder's join with its token gives a token only it holds; the old one (the creator's copy) reads nothing, also after a restart", async () => {
    const dir = tempDir();
    let live = await startLive({}, dir);
    lives.push(live);
    const made = (await http(live.base, "POST", "/v1/tables", { game: "dcg", seats: ["human", "human"] })).body;
    const { table, tokens } = made as { table: string; tokens: Record<string, string> };
    // The invited person opens the seat with the link's token, then re-keys it.
    const old = await Client.open(`${live.ws}/v1/tables/${table}/seats/1/ws?token=${encodeURIComponent(tokens["1"]!)}`);
    clients.push(old);
    await old.frame();
    const rekeyed = await http(live.base, "POST", `/v1/tables/${table}/seats/1/join`, undefined, { "x-seat-token": tokens["1"]! });
    expect(rekeyed.status).toBe(200);
    const mine = rekeyed.body.token as string;
    expect(rekeyed.body).toEqual({ table, seat: 1, token: mine });
    expect(mine).not.toBe(tokens["1"]);
    // The creator's copy of the old token reads nothing now; the channel opened with it is closed.
    expect((await frame(live, table, 1, tokens["1"]!)).status).toBe(401);
    await expect.poll(() => old.closed?.code).toBe(4001);
    const seat1 = (await frame(live, table, 1, mine)).body;
    expect(seat1.seat).toBe(1);
    expect(seat1.seats[1]).toMatchObject({ kind: "human", held: true, joins: 1 });
    // A wrong token is refused; without one it is an ordinary join of a held seat.
    expect((await http(live.base, "POST", `/v1/tables/${table}/seats/1/join`, undefined, { "x-seat-token": tokens["0"]! })).status).toBe(401);
    expect((await http(live.base, "POST", `/v1/tables/${table}/seats/1/join`)).body.error.code).toBe("seat_taken");
    // The re-key is journaled: a restart keeps the new token and refuses the old one.
    await live.close(true);
    lives.splice(0);
    live = await startLive({}, dir);
    lives.push(live);
    expect((await frame(live, table, 1, mine)).status).toBe(200);
    expect((await frame(live, table, 1, tokens["1"]!)).status).toBe(401);
  });
});
