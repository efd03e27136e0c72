/**
 * The terminal client: `npm run play` with a "human" seat plays through a live table in this
 * terminal (numbered decisions, the board after each move), and `--connect` plays a remote seat.
 */
import { spawn } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { http, startLive, type Live } from "./helpers.ts";

let live: Live | null = null;
afterEach(async () => {
  await live?.close();
  live = null;
});

/** Runs scripts/play.ts with `input` on stdin; resolves with exit code and stdout. */
function play(args: string[], input: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ["--import", "tsx", "scripts/play.ts", ...args], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d) => (out += String(d)));
    p.stderr.on("data", (d) => (err += String(d)));
    p.on("exit", (code) => resolve({ code, out, err }));
    p.stdin.end(input);
  });
}

describe("terminal client", () => {
  it("plays a human seat against agents from typed numbers, showing numbered decisions and the board", async () => {
    const r = await play(["sevens", "--seats", "3", "--agents", "human,random,random", "--seed", "3"], "x\n" + "1\n".repeat(200));
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("you are seat 0");
    expect(r.out).toMatch(/ {4}1\. seat 0 plays/);
    expect(r.out).toContain('"x" is not a number from 1 to');
    expect(r.out).toMatch(/♠ +·/);
    expect(r.out).toMatch(/game over after \d+ decisions/);
  });

  it("deals a person a game nobody knows when no --seed is given, and says its seed at the end", async () => {
    // With seed 1 as the default, every such game was the same deal and the same agents' play: one
    // game told a person every hand of the next. The table id differs per run; the rest did not.
    const args = ["sevens", "--seats", "3", "--agents", "human,random,random"];
    const [a, b] = await Promise.all([play(args, "1\n".repeat(200)), play(args, "1\n".repeat(200))]);
    for (const r of [a, b]) {
      expect(r.err).toBe("");
      expect(r.code).toBe(0);
    }
    const game = (out: string) => out.replace(/^table t-\S+/m, "").replace(/^seed \d+ .*$/m, "");
    expect(game(a.out)).not.toBe(game(b.out));
    const seedOf = (out: string) => Number(/^seed (\d+) \(--seed \1 deals this game again\)$/m.exec(out)?.[1]);
    expect(seedOf(a.out)).not.toBe(seedOf(b.out));
    // The seed it names deals the same game again.
    const again = await play([...args, "--seed", String(seedOf(a.out))], "1\n".repeat(200));
    expect(game(again.out)).toBe(game(a.out));
  });

  it("dcg: says who acts, lists Confirm and End turn first, a card's cells on one line, card texts on ?", async () => {
    const r = await play(["dcg", "--agents", "human,computer", "--seed", "3"], "?\n" + "1\n".repeat(800));
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain(">> Strategy time: your placement (place your strategy rubrics, then confirm)");
    expect(r.out).toMatch(/ {4}1\. place \S.* \(strategy\) -> A0 B0 C0 D0 E0 A1 B1/);
    expect(r.out).toMatch(/Raider \(strategy\): Rubric · cost 1 MP · attack 1 \/ life 3/);
    expect(r.out).toContain("    1. Confirm placement");
    expect(r.out).toContain("    1. End turn");
    expect(r.out).toMatch(/>> Guest's turn/);
    expect(r.out).not.toMatch(/ {2}20\. /);
    expect(r.out).toMatch(/game over after \d+ decisions/);
  });

  it("--connect plays a seat of a remote table with its token", async () => {
    live = await startLive();
    const made = (await http(live.base, "POST", "/v1/tables", { game: "sevens", seats: ["random", "human", "random"], seed: 5 })).body;
    const r = await play(["--connect", live.base, "--table", made.table, "--seat", "1", "--token", made.tokens["1"]], "1\n".repeat(200));
    expect(r.code).toBe(0);
    expect(r.out).toContain("you are seat 1");
    expect(r.out).toMatch(/game over after \d+ decisions/);
    const summary = (await http(live.base, "GET", `/v1/tables/${made.table}/log?since=0`)).body;
    expect(summary.events.filter((e: any) => e.seat === 1).every((e: any) => e.cause === "answer")).toBe(true);
    const wrong = await play(["--connect", live.base, "--table", made.table, "--seat", "1", "--token", "wrong"], "");
    expect(wrong.out).toContain("unauthorized");
    expect(wrong.code).not.toBe(0);
  });
});
