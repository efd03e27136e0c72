import { afterEach, describe, expect, it } from "vitest";
import { Client, http, startLive, type Live } from "./helpers.ts";

let live: Live | null = null;
afterEach(async () => {
  await live?.close();
  live = null;
});

describe("live tables: smoke", () => {
  it("creates a sevens table and plays it through two WebSockets", async () => {
    live = await startLive();
    const made = await http(live.base, "POST", "/v1/tables", { game: "sevens", seats: ["human", "human", "human"], seed: 3 });
    expect(made.body).toMatchObject({ table: expect.any(String) });
    expect(made.status).toBe(201);
    const { table, tokens } = made.body;
    const a = await Client.open(`${live.ws}/v1/tables/${table}/seats/0/ws?token=${tokens["0"]}`);
    const b = await Client.open(`${live.ws}/v1/tables/${table}/seats/1/ws?token=${tokens["1"]}`);
    const c = await Client.open(`${live.ws}/v1/tables/${table}/seats/2/ws?token=${tokens["2"]}`);
    const clients = [a, b, c];
    let last: any = null;
    for (let i = 0; i < 500; i++) {
      const fa = await a.frame((f) => f.seq >= i);
      const fb = await b.frame((f) => f.seq >= i);
      const fc = await c.frame((f) => f.seq >= i);
      last = fa;
      if (fa.status === "finished") break;
      const mine = [fa, fb, fc].find((f) => f.decisions.length > 0)!;
      clients[mine.seat]!.send({ type: "answer", seq: mine.seq, decisionId: mine.decisions[0].id });
    }
    expect(last.status).toBe("finished");
    const rec = await http(live.base, "GET", `/v1/tables/${table}/record`);
    expect(rec.status).toBe(200);
    expect(rec.body.decisions.length).toBe(last.seq);
    a.close();
    b.close();
  });
});
