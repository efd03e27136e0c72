import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { registry } from "../../engine/games.ts";
import { runScript } from "./run-script.ts";

const dir = mkdtempSync(join(tmpdir(), "cardgym-cli-"));

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
