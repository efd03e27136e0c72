/**
 * Resigning a seat (docs/live.md, Resigning): dcg concedes through its forceFinish decision, which
 * lands in the signed log with cause "resign" and replays; a game without a conceding decision
 * hands the seat to the takeover agent for the rest of the game. Either way the seat shows
 * `resigned`, its token is refused afterwards, and all of it survives a restart.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { registry } from "../../engine/games.ts";
import { verifySignedRecord } from "../../env/live/verify.ts";
import { Client, http, startLive, tempDir, type Live } from "./helpers.ts";

const servers: Live[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const s of servers.splice(0)) await s.close();
});

async function serve(dataDir = tempDir()): Promise<Live> {
  const live = await startLive({}, dataDir);
  servers.push(live);
  return live;
}

async function open(live: Live, table: string, seat: number, token: string): Promise<Client> {
  const c = await Client.open(`${live.ws}/v1/tables/${table}/seats/${seat}/ws?token=${token}`);
  clients.push(c);
  return c;
}

/** A client whose connection is refused: the error it got and the close code. */
async function refused(live: Live, table: string, seat: number, token: string): Promise<{ code: string; close: number }> {
  const c = await open(live, table, seat, token);
  const err = await c.next((m) => m.type === "error");
  await new Promise<void>((resolve) => (c.closed ? resolve() : c.socket.once("close", () => resolve())));
  return { code: err.error.code, close: c.closed!.code };
}

const pick = (f: { seq: number; seat: number; decisions: { id: number }[] }) => f.decisions[(f.seq * 7919 + f.seat * 31) % f.decisions.length]!.id;

/** Plays with the given seats' clients until the game ends or `until(frame)` holds; returns the last frame of the first client. */
async function playWith(seats: Map<number, Client>, until: (f: any) => boolean = () => false): Promise<any> {
  const first = [...seats.values()][0]!;
  let f = await first.frame();
  for (let guard = 0; guard < 5000; guard++) {
    if (f.status === "finished" || until(f)) return f;
    const seq = f.seq;
    const frames = await Promise.all([...seats.values()].map((c) => c.frame((x) => x.seq >= seq)));
    const mine = frames.find((x) => x.seq === seq && x.decisions.length > 0);
    if (mine) seats.get(mine.seat)!.send({ type: "answer", seq, decisionId: pick(mine) });
    f = await first.frame((x) => x.seq > seq || x.status === "finished");
  }
  throw new Error("the game did not end");
}

describe("resigning a seat", () => {
  it("sevens (no conceding decision): the takeover agent plays the seat to the end, the token is refused from then on", async () => {
    const live = await serve();
    const made = (await http(live.base, "POST", "/v1/tables", { game: "sevens", seats: ["human", "human", "human"], seed: 5 })).body;
    const { table, tokens } = made;
    const cs = await Promise.all([0, 1, 2].map((s) => open(live, table, s, tokens[String(s)])));
    await Promise.all(cs.map((c) => c.frame()));
    cs[2]!.send({ type: "resign" });
    // Every channel learns it; the resigner's own channel gets that frame, then closes with 4002.
    for (const c of cs.slice(0, 2)) {
      const f = await c.frame((x) => x.seats[2].status === "resigned");
      expect(f.seats[2]).toMatchObject({ kind: "human", status: "resigned", agent: "random", held: true });
    }
    await cs[2]!.frame((x) => x.seats[2].status === "resigned");
    await new Promise<void>((resolve) => (cs[2]!.closed ? resolve() : cs[2]!.socket.once("close", () => resolve())));
    expect(cs[2]!.closed!.code).toBe(4002);
    const resignedAt = (await http(live.base, "GET", `/v1/tables/${table}`)).body.seq;

    // The token no longer works: WebSocket, HTTP frame, answer and a second resign are refused with seat_resigned.
    expect(await refused(live, table, 2, tokens["2"])).toEqual({ code: "seat_resigned", close: 4002 });
    const header = { "x-seat-token": tokens["2"] };
    for (const [method, path, body] of [
      ["GET", `/v1/tables/${table}/seats/2/frame`, undefined],
      ["POST", `/v1/tables/${table}/seats/2/answer`, { seq: resignedAt, decisionId: 0 }],
      ["POST", `/v1/tables/${table}/seats/2/resign`, undefined],
    ] as const) {
      const r = await http(live.base, method, path, body, header);
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe("seat_resigned");
    }

    const last = await playWith(
      new Map([
        [0, cs[0]!],
        [1, cs[1]!],
      ]),
    );
    expect(last.status).toBe("finished");
    expect(last.seats[2].status).toBe("resigned");
    const events = (await http(live.base, "GET", `/v1/tables/${table}/log?since=${resignedAt}`)).body.events;
    const seat2 = events.filter((e: any) => e.seat === 2);
    expect(seat2.length).toBeGreaterThan(0);
    expect(seat2.every((e: any) => e.cause === "agent")).toBe(true);
  });

  it("dcg (forceFinish concedes): a resign while the other seat decides waits for the seat's turn, survives a restart, and ends the game in the signed log", async () => {
    const dataDir = tempDir();
    let live = await serve(dataDir);
    const made = (await http(live.base, "POST", "/v1/tables", { game: "dcg", seats: ["human", "human"], seed: 21 })).body;
    const { table, tokens } = made;
    const seats = [await open(live, table, 0, tokens["0"]), await open(live, table, 1, tokens["1"])];
    const f0 = await seats[0]!.frame();
    const actor: number = f0.actor;
    const other = 1 - actor;

    // The seat that does not decide now resigns over HTTP: conceded, pending until its turn.
    const r = await http(live.base, "POST", `/v1/tables/${table}/seats/${other}/resign`, undefined, { "x-seat-token": tokens[String(other)] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ resigned: true, seat: other, outcome: "conceded" });
    const seen = await seats[actor]!.frame((x) => x.seats[other].status === "resigned");
    expect(seen.status).toBe("playing");
    expect(seen.seq).toBe(f0.seq);

    // Restart on the same data dir: the seat is still resigned and its token still refused.
    for (const c of clients.splice(0)) c.close();
    await live.close(true);
    servers.splice(servers.indexOf(live), 1);
    live = await serve(dataDir);
    const summary = (await http(live.base, "GET", `/v1/tables/${table}`)).body;
    expect(summary.seats[other]).toMatchObject({ status: "resigned" });
    expect(summary.status).toBe("playing");
    expect(await refused(live, table, other, tokens[String(other)])).toEqual({ code: "seat_resigned", close: 4002 });

    // The other seat plays on; at the resigned seat's first decision the server applies forceFinish.
    const keeper = await open(live, table, actor, tokens[String(actor)]);
    const last = await playWith(new Map([[actor, keeper]]));
    expect(last.status).toBe("finished");
    const wantReturns = [0, 0];
    wantReturns[actor] = 1;
    wantReturns[other] = -1;
    expect(last.returns).toEqual(wantReturns);

    const record = (await http(live.base, "GET", `/v1/tables/${table}/record`)).body;
    expect(record.decisions.at(-1)).toEqual({ kind: "forceFinish" });
    expect(record.signed.entries.at(-1)).toMatchObject({ seat: other, cause: "resign" });
    expect(record.signed.entries.filter((e: any) => e.cause === "resign")).toHaveLength(1);
    const key = Buffer.from(readFileSync(join(dataDir, "server.key"), "utf8").trim(), "hex");
    expect(verifySignedRecord(registry, key, record)).toBeNull();
    const log = (await http(live.base, "GET", `/v1/tables/${table}/log?since=0`)).body.events;
    expect(log.at(-1)).toMatchObject({ seat: other, cause: "resign" });
  });

  it("dcg: resigning on one's own turn ends the game at once", async () => {
    const live = await serve();
    const made = (await http(live.base, "POST", "/v1/tables", { game: "dcg", seats: ["human", "random"], seed: 4 })).body;
    const a = await open(live, made.table, 0, made.tokens["0"]);
    const mine = await a.frame((f) => f.decisions.length > 0);
    a.send({ type: "resign" });
    const end = await a.frame((f) => f.status === "finished");
    expect(end.seq).toBe(mine.seq + 1);
    expect(end.events.at(-1)).toMatchObject({ seq: mine.seq, seat: 0, cause: "resign" });
    expect(end.returns).toEqual([-1, 1]);
    expect(end.seats[0].status).toBe("resigned");
    const again = await http(live.base, "POST", `/v1/tables/${made.table}/seats/0/resign`, undefined, { "x-seat-token": made.tokens["0"] });
    expect(again.body.error.code).toBe("seat_resigned");
  });
});
