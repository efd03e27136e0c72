/**
 * The debug facilitator (docs/live.md, docs/board-file.md): a dcg table started from a board file,
 * over real HTTP and WebSockets; and sessions whose config carries the same board.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseRecord, replay, unwrap } from "../../engine/core/index.ts";
import { registry } from "../../engine/games.ts";
import { boardCell } from "../../engine/dcg/board-file.ts";
import { dcg } from "../../engine/dcg/index.ts";
import { Client, http, liveForFile, startLive, tempDir, type Live } from "./helpers.ts";

const BOARD = JSON.parse(readFileSync(new URL("../../docs/examples/dcg-board.json", import.meta.url), "utf8"));
const board = () => structuredClone(BOARD);

const server = liveForFile();

const create = server.create;
const fast = { botDelayMs: 0 };

/** Every unit of the board stands on its cell in a dcg view (cells hold instance ids; cards their defs). */
function expectUnits(view: any): void {
  for (const [seat, p] of BOARD.players.entries()) {
    for (const u of p.field) {
      const id = view.cells[boardCell(u.cell)];
      expect(id, `${u.card} on ${u.cell}`).toBeGreaterThanOrEqual(0);
      expect(dcg.pool.cards[view.cards[id].def]!.id).toBe(u.card);
      expect(view.cards[id].owner).toBe(seat);
    }
  }
}

/** The table's record replays in this process to the hash the table reached. */
async function expectReplays(table: string): Promise<any> {
  const record = (await http(server.live.base, "GET", `/v1/tables/${table}/record`)).body;
  expect(record.config.board).toEqual(BOARD);
  const parsed = unwrap(parseRecord(record));
  expect(unwrap(replay(registry, parsed)).finalHash).toBe(record.finalHash);
  return record;
}

describe("debug facilitator", () => {
  it("a person and an agent at a board: the first frame shows it, the game plays out, the record replays", async () => {
    const made = await create({ game: "dcg", facilitator: "debug", board: board(), seats: ["human", "computer"], seed: 4, deadlines: fast });
    expect(made.status).toBe(201);
    expect(made.body.facilitator).toBe("debug");
    expect(made.body.config.board).toEqual(BOARD);
    expect(made.body.seats.map((s: any) => s.kind)).toEqual(["human", "agent"]);
    const c = await Client.open(`${server.live.ws}/v1/tables/${made.body.table}/seats/0/ws?token=${made.body.tokens["0"]}`);
    let f = await c.frame();
    expect(f.seq).toBe(0);
    expect(f.view.turn).toBe(5);
    expect(f.view.state.kind).toBe("Main");
    expect(f.view.players.map((p: any) => [p.hp, p.mp])).toEqual([
      [9, 5],
      [7, 6],
    ]);
    expect(f.view.hand.map((id: number) => dcg.pool.cards[f.view.cards[id].def]!.id)).toEqual(BOARD.players[0].hand);
    expectUnits(f.view);
    // Host moves first: the frame offers decisions at once.
    expect(f.decisions.length).toBeGreaterThan(1);
    while (f.status !== "finished") {
      if (f.decisions.length > 0) {
        // Prefer ending the turn now and then, so the game moves on.
        const end = f.decisions.find((d: any) => d.decision.kind === "turnFinish");
        const choice = end && f.seq % 3 === 0 ? end : f.decisions[f.seq % f.decisions.length];
        c.send({ type: "answer", seq: f.seq, decisionId: choice.id });
      }
      const seq = f.seq;
      f = await c.frame((x) => x.seq > seq || x.status === "finished");
    }
    c.close();
    await expectReplays(made.body.table);
  });

  it("agents only, watched by a spectator: the spectator's first frame shows the board too", async () => {
    const made = await create({ game: "dcg", facilitator: "debug", board: board(), seats: ["random", "computer"], seed: 8, deadlines: fast });
    expect(made.status).toBe(201);
    expect(made.body.tokens).toEqual({});
    const w = await Client.open(`${server.live.ws}/v1/tables/${made.body.table}/spectate`);
    const first = await w.next((m) => m.type === "spectate");
    expectUnits(first.view);
    await w.frame((x) => x.status === "finished");
    w.close();
    const record = await expectReplays(made.body.table);
    expect(record.decisions.length).toBeGreaterThan(0);
  });

  it("the board's hidden cards reach no channel that may not see them: hello, frames, HTTP frames, the log", async () => {
    // Cards that stand only in one seat's hand, book or face-down feint on the example board.
    const hiddenOf = [
      ["pitfall", "leech-knight", "raider"],
      ["riposte", "mirage", "sapper", "catapult"],
    ];
    const made = await create({ game: "dcg", facilitator: "debug", board: board(), seats: ["human", "human"], seed: 3 });
    expect(made.status).toBe(201);
    const { base, ws } = server.live;
    const t = made.body.table;
    const seen: { who: string; hidden: string[]; text: string }[] = [];
    const channel = async (who: string, hidden: string[], url: string) => {
      const c = await Client.open(url);
      const hello = await c.next((m) => m.type === "hello");
      const frame = await c.frame();
      c.close();
      seen.push({ who: `${who} hello`, hidden, text: JSON.stringify(hello) }, { who: `${who} frame`, hidden, text: JSON.stringify(frame) });
    };
    for (const seat of [0, 1]) {
      const token = made.body.tokens[String(seat)];
      await channel(`seat ${seat}`, hiddenOf[1 - seat]!, `${ws}/v1/tables/${t}/seats/${seat}/ws?token=${token}`);
      const polled = await http(base, "GET", `/v1/tables/${t}/seats/${seat}/frame`, undefined, { "x-seat-token": token });
      seen.push({ who: `seat ${seat} HTTP frame`, hidden: hiddenOf[1 - seat]!, text: JSON.stringify(polled.body) });
    }
    const both = [...hiddenOf[0]!, ...hiddenOf[1]!];
    await channel("spectator", both, `${ws}/v1/tables/${t}/spectate`);
    for (const path of [`/v1/tables/${t}/spectate`, `/v1/tables/${t}/log`, `/v1/tables/${t}`, "/v1/tables"]) {
      seen.push({ who: path, hidden: both, text: JSON.stringify((await http(base, "GET", path)).body) });
    }
    for (const { who, hidden, text } of seen) {
      for (const card of hidden) expect(text.includes(`"${card}"`), `${who} names ${card}`).toBe(false);
    }
  });

  it("a missing or malformed board is a 400 invalid_board naming the JSON path", async () => {
    const missing = await create({ game: "dcg", facilitator: "debug", seats: ["human", "random"] });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: "invalid_board", path: "board" });
    const b = board();
    b.players[1].field[0].cell = "C2"; // where Host's banner-knight stands
    const clash = await create({ game: "dcg", facilitator: "debug", board: b });
    expect(clash.status).toBe(400);
    expect(clash.body.error.code).toBe("invalid_board");
    expect(clash.body.error.path).toBe("board.players[1].field[0].cell");
    expect(clash.body.error.message).toBe("board.players[1].field[0].cell: cell C2 already holds board.players[0].field[0]");
    const typo = board();
    typo.players[0].field[2].cell = 99;
    const off = await create({ game: "dcg", facilitator: "debug", board: typo });
    expect(off.body.error.path).toBe("board.players[0].field[2].cell");
    expect(off.body.error.message).toMatch(/^board\.players\[0\]\.field\[2\]\.cell: must be a cell/);
    const junk = await create({ game: "dcg", facilitator: "debug", board: "C2" });
    expect(junk.body.error).toMatchObject({ code: "invalid_board", path: "board" });
  });

  it("a board belongs to the debug facilitator and to dcg, given once", async () => {
    const online = await create({ game: "dcg", facilitator: "online", board: board() });
    expect(online.status).toBe(400);
    expect(online.body.error.code).toBe("invalid_board");
    const sevens = await create({ game: "sevens", facilitator: "debug", board: board() });
    expect(sevens.status).toBe(400);
    expect(sevens.body.error.code).toBe("unsupported_facilitator");
    const twice = await create({ game: "dcg", facilitator: "debug", board: board(), config: { board: board() } });
    expect(twice.body.error).toMatchObject({ code: "invalid_board", path: "config.board" });
  });

  it("config limits apply: a board above the config's hp is refused, a larger config hp admits it", async () => {
    const b = board();
    b.players[0].hp = 20;
    const refused = await create({ game: "dcg", facilitator: "debug", board: b });
    expect(refused.body.error).toMatchObject({ code: "invalid_board", path: "board.players[0].hp" });
    const admitted = await create({ game: "dcg", facilitator: "debug", board: b, config: { hp: 20 } });
    expect(admitted.status).toBe(201);
  });
});

describe("debug tables are durable", () => {
  it("a server restarted on the same data dir brings the table back at its board and its last decision", async () => {
    const dir = tempDir();
    const first = await startLive({}, dir);
    const made = await http(first.base, "POST", "/v1/tables", { game: "dcg", facilitator: "debug", board: board(), seats: ["human", "human"], seed: 2 });
    expect(made.status).toBe(201);
    const url = (l: Live) => `${l.ws}/v1/tables/${made.body.table}/seats/0/ws?token=${made.body.tokens["0"]}`;
    const c = await Client.open(url(first));
    let f = await c.frame();
    // Host summons twice from its hand (MP 5; charger and ember-imp cost 1 each): still its Main.
    for (let i = 0; i < 2; i++) {
      const d = f.decisions.find((x: any) => x.decision.kind === "summon");
      c.send({ type: "answer", seq: f.seq, decisionId: d.id });
      const seq = f.seq;
      f = await c.frame((x) => x.seq > seq);
    }
    c.close();
    const before = f.view;
    await first.close(true);
    const second = await startLive({}, dir);
    try {
      const info = await http(second.base, "GET", `/v1/tables/${made.body.table}`);
      expect(info.body).toMatchObject({ facilitator: "debug", seq: f.seq });
      const back = await Client.open(url(second));
      const g = await back.frame();
      expect(g.view).toEqual(before);
      back.close();
    } finally {
      await second.close();
    }
  });
});

describe("sessions with config.board", () => {
  it("every reset starts at the board's position", async () => {
    const made = await http(server.live.base, "POST", "/v1/sessions", { game: "dcg", config: { board: board() }, numEnvs: 2, seed: 5 });
    expect(made.status).toBe(201);
    const id = made.body.session;
    const render = async (env: number) => (await http(server.live.base, "GET", `/v1/sessions/${id}/render?env=${env}`)).body.text as string;
    const start = dcg.render(dcg.setup(unwrap(dcg.parseConfig({ board: BOARD })), 1));
    expect((await http(server.live.base, "POST", `/v1/sessions/${id}/reset`, {})).status).toBe(200);
    for (const env of [0, 1]) expect((await render(env)).startsWith(start)).toBe(true);
    // Play a few steps (the first legal action each time), then reset: back at the board.
    for (let t = 0; t < 3; t++) {
      const mask = (await http(server.live.base, "GET", `/v1/sessions/${id}/mask?labels=true`)).body;
      const actions = mask.labels.map((legal: { id: number }[]) => legal[0]!.id);
      expect((await http(server.live.base, "POST", `/v1/sessions/${id}/step`, { actions })).status).toBe(200);
    }
    expect((await render(0)).startsWith(start)).toBe(false);
    await http(server.live.base, "POST", `/v1/sessions/${id}/reset`, { seed: 11 });
    expect((await render(0)).startsWith(start)).toBe(true);
  });

  it("a malformed board is a 400 invalid_config naming the path", async () => {
    const b = board();
    b.players[0].hand[0] = "no-such-card";
    const bad = await http(server.live.base, "POST", "/v1/sessions", { game: "dcg", config: { board: b } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_config");
    expect(bad.body.error.message).toMatch(/^board\.players\[0\]\.hand\[0\]: unknown card "no-such-card"/);
  });
});
