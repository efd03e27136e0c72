import { spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../fixtures/temp-dir.ts";
import { projectEvents } from "../../engine/core/index.ts";
import { registry } from "../../engine/games.ts";
import { hangGuard, waitUntil } from "../fixtures/hang-guard.ts";
import { repoRoot, runScript } from "./run-script.ts";

const dir = tempDir("cardgym-cli-");

describe("play and replay CLIs", () => {
  for (const id of registry.ids()) {
    it(`plays a whole ${id} game, writes a record, and another process replays it to the same hash`, () => {
      const path = join(dir, `${id}.json`);
      const play = runScript("play.ts", [id, "--seed", "7", "--record", path]);
      expect(play.stderr).toBe("");
      expect(play.code).toBe(0);
      expect(play.stdout).toMatch(/result after \d+ decisions/);
      const hash = /final state hash ([0-9a-f]{16})/.exec(play.stdout)?.[1];
      expect(hash).toBeDefined();
      const again = runScript("replay.ts", [path]);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain(`final state hash ${hash}`);
    });
  }

  it("replays a record saved again with a byte-order mark", () => {
    const path = join(dir, "sevens-bom.json");
    const play = runScript("play.ts", ["sevens", "--seed", "3", "--record", path]);
    expect(play.code).toBe(0);
    const hash = /final state hash ([0-9a-f]{16})/.exec(play.stdout)?.[1];
    writeFileSync(path, "\uFEFF" + readFileSync(path, "utf8"));
    const again = runScript("replay.ts", [path]);
    expect(again.stderr).toBe("");
    expect(again.stdout).toContain(`final state hash ${hash}`);
  });

  it("--events prints each decision's events as the viewer reads them (owner: every face), recomputed from the record", () => {
    const path = join(dir, "events.json");
    expect(runScript("play.ts", ["sevens", "--seed", "3", "--record", path, "--quiet"]).code).toBe(0);
    const record = JSON.parse(readFileSync(path, "utf8"));
    const game = registry.get("sevens");
    if (!game.ok) throw new Error("no sevens");
    const config = game.value.parseConfig(record.config);
    if (!config.ok) throw new Error(config.error.message);
    let state = game.value.setup(config.value, record.seed);
    const lines: string[] = [];
    record.decisions.forEach((d: unknown, i: number) => {
      const out = game.value.apply(state, d);
      if (!out.ok) throw new Error(out.error.message);
      projectEvents(game.value.events(state, d, out.state), 1).forEach((e, k) =>
        lines.push(k === 0 ? `#${String(i + 1).padStart(4)}  ${e.text}` : `         ${e.text}`),
      );
      state = out.state;
    });
    const seat = runScript("replay.ts", [path, "--events", "1"]);
    expect(seat.code).toBe(0);
    expect(seat.stdout.split("\n").slice(0, lines.length)).toEqual(lines);
    expect(runScript("replay.ts", [path, "--events", "owner"]).stdout).toContain("#   1  ");
    const bad = runScript("replay.ts", [path, "--events", "everyone"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--events takes owner, spectator or a seat number/);
    // A seat the game does not have is refused, not read as a spectator.
    const none = runScript("replay.ts", [path, "--events", "7"]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe("");
    expect(none.stderr.trim()).toBe("error: --events 7: this sevens game has seats 0 to 4");
  });

  it("a human game interrupted with Ctrl-C (SIGINT) or killed (SIGTERM) leaves no temp folder behind", async () => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      const tmp = tempDir("cardgym-play-tmp-");
      const child = spawn(process.execPath, ["--import", "tsx", "scripts/play.ts", "sevens", "--seats", "3", "--agents", "human,random,random"], {
        cwd: repoRoot,
        env: { ...process.env, TMPDIR: tmp },
        stdio: ["pipe", "pipe", "pipe"],
      });
      let out = "";
      child.stdout.on("data", (b: Buffer) => (out += b.toString()));
      child.stderr.on("data", (b: Buffer) => (out += b.toString()));
      const exited = new Promise<string | number | null>((done) => child.on("exit", (code, sig) => done(sig ?? code)));
      await waitUntil(() => out.includes("choose "), `the human seat's prompt (${signal})`, hangGuard(120_000));
      expect(readdirSync(tmp).filter((n) => n.startsWith("cardgym-play-"))).toHaveLength(1);
      child.kill(signal);
      expect(await exited, out).toBe(signal); // ends as the signal would have ended it
      expect(
        readdirSync(tmp).filter((n) => n.startsWith("cardgym-play-")),
        signal,
      ).toEqual([]);
    }
  });

  it("refuses an unknown game, a bad seat count and bad flags with one line and a non-zero exit", () => {
    const unknown = runScript("play.ts", ["chess"]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toMatch(/^error: unknown_game: unknown game "chess"; known games: /);
    expect(unknown.stderr).not.toMatch(/\n\s+at /);
    if (registry.get("sevens").ok) {
      const seats = runScript("play.ts", ["sevens", "--seats", "9"]);
      expect(seats.code).toBe(2);
      expect(seats.stderr).toMatch(/seats must be between 3 and 6, got 9/);
      expect(seats.stderr.trim().split("\n")[0]).toMatch(/^error: /);
    }
    const flag = runScript("play.ts", [registry.ids()[0]!, "--seed", "x"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/--seed must be an integer/);
    const agent = runScript("play.ts", [registry.ids()[0]!, "--agents", "grandmaster"]);
    expect(agent.code).toBe(2);
    expect(agent.stderr).toMatch(/unknown agent "grandmaster"/);
    // A --record path that cannot be written is refused before the game is played, not after.
    for (const [path, message] of [
      [dir, /^error: --record: .* is a directory$/],
      [join(dir, "no-such-dir", "out.json"), /^error: --record: cannot write .*out\.json \(ENOENT\)$/],
    ] as const) {
      const run = runScript("play.ts", [registry.ids()[0]!, "--record", path]);
      expect(run.code, path).toBe(2);
      expect(run.stderr.trim(), path).toMatch(message);
      expect(run.stdout, path).not.toMatch(/result after/);
    }
  });

  it("refuses a malformed record file, a record with an illegal step and a tampered hash", () => {
    const id = registry.ids()[0]!;
    const good = join(dir, "good.json");
    expect(runScript("play.ts", [id, "--seed", "3", "--record", good, "--quiet"]).code).toBe(0);
    const record = JSON.parse(readFileSync(good, "utf8"));

    const garbage = join(dir, "garbage.json");
    writeFileSync(garbage, "{ not json");
    const g = runScript("replay.ts", [garbage]);
    expect(g.code).toBe(1);
    expect(g.stderr).toMatch(/^error: .*garbage\.json is not valid JSON/);

    const shape = join(dir, "shape.json");
    writeFileSync(shape, JSON.stringify({ game: id, seed: "x" }));
    const s = runScript("replay.ts", [shape]);
    expect(s.code).toBe(1);
    expect(s.stderr).toMatch(/record\.version must be a string|record\.seed/);

    const illegal = join(dir, "illegal.json");
    const decisions = record.decisions.slice();
    decisions[1] = { kind: "cheat" };
    writeFileSync(illegal, JSON.stringify({ ...record, decisions }));
    const i = runScript("replay.ts", [illegal]);
    expect(i.code).toBe(1);
    expect(i.stderr).toMatch(/decisions\[1\] cannot be applied/);

    const tampered = join(dir, "tampered.json");
    writeFileSync(tampered, JSON.stringify({ ...record, finalHash: "0123456789abcdef" }));
    const t = runScript("replay.ts", [tampered]);
    expect(t.code).toBe(1);
    expect(t.stderr).toMatch(/hash_mismatch/);

    const missing = runScript("replay.ts", [join(dir, "nope.json")]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/cannot read .*ENOENT/);
  });
});
