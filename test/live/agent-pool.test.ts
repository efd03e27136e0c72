import { afterEach, describe, expect, it } from "vitest";
import { hangGuard } from "../fixtures/hang-guard.ts";
import { http, startLive, type Live } from "./helpers.ts";

const BUDGET_MS = 1000;

/** Polls the table until it is finished; the guard only turns a hang into a failure. */
async function waitFinished(live: Live, id: string, guardMs = hangGuard()): Promise<any> {
  const until = Date.now() + guardMs;
  for (;;) {
    const t = await http(live.base, "GET", `/v1/tables/${id}`);
    if (t.body.status === "finished") return t.body;
    if (Date.now() > until) throw new Error(`hang guard: table ${id} not finished after ${guardMs} ms: ${JSON.stringify(t.body)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Table agents decide on the server's worker pool under the step budget, and are priced at
// creation like session seats: no table can stall the server (issue 13's runtime, for issue 14).
describe("live tables: agents on the worker pool", () => {
  let live: Live | null = null;
  afterEach(async () => {
    await live?.close();
    live = null;
  });

  it("an agent that runs past the budget gets its default decision while /healthz keeps answering", async () => {
    live = await startLive({ workers: 1, stepTimeoutMs: BUDGET_MS });
    // mcts:ms=4000 is within the admission limit but thinks four times longer than the budget.
    const made = await http(live.base, "POST", "/v1/tables", {
      game: "dcg",
      seats: ["mcts:ms=4000", "random"],
      seed: 3,
      facilitator: "audience",
      deadlines: { botDelayMs: 0 },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    let finished = false;
    let answeredInPlay = 0;
    const watch = (async () => {
      while (!finished) {
        const h = await fetch(`${live!.base}/healthz`);
        expect(h.status).toBe(200);
        if (!finished) answeredInPlay++;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    // dcg's default decision is forceFinish: the seat whose agent overran loses the game.
    const done = await waitFinished(live, made.body.table);
    finished = true;
    await watch;
    const record = await http(live.base, "GET", `/v1/tables/${made.body.table}/record`);
    expect(record.body.decisions.some((d: any) => d.kind === "forceFinish")).toBe(true);
    expect(done.status).toBe("finished");
    // The worker was stuck on the overrunning agent for at least the budget, and the server kept
    // answering meanwhile. (How fast it answers is a benchmark: npm run bench:healthz.)
    expect(answeredInPlay).toBeGreaterThan(0);
  });

  it("refuses a table whose agent costs more than --max-agent-cost, naming the limit", async () => {
    // The limit sits between sevens' default computer (1024 units) and a 100000-iteration search.
    live = await startLive({ workers: 1, maxAgentCost: 2000 });
    const bad = await http(live.base, "POST", "/v1/tables", { game: "dcg", seats: ["human", "mcts:iters=100000"] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("agent_too_costly");
    expect(bad.body.error.message).toMatch(/--max-agent-cost 2000/);
    // The agent sits at seat 1 and is priced alone: the message names it, not a seat.
    expect(bad.body.error.message).toContain('"mcts:iters=100000" costs 100000 playout units per decision');
    expect(bad.body.error.message).not.toMatch(/seat \d/);
    const fine = await http(live.base, "POST", "/v1/tables", {
      game: "sevens",
      seats: ["random", "computer", "random"],
      seed: 1,
      facilitator: "audience",
      deadlines: { botDelayMs: 0 },
    });
    expect(fine.status, JSON.stringify(fine.body)).toBe(201);
    await waitFinished(live, fine.body.table);
  });
});
