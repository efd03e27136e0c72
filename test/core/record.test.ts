import { describe, expect, it } from "vitest";
import { createRegistry, parseRecord, replay, stateHash } from "../../engine/core/index.ts";
import { tiny } from "./tiny-game.ts";

const registry = createRegistry([tiny]);

describe("GameRecord", () => {
  it("parseRecord refuses malformed documents with the field named", () => {
    const cases: [unknown, string | undefined][] = [
      [null, undefined],
      [[], undefined],
      [{ version: "1", seed: 1, decisions: [] }, "game"],
      [{ game: "tiny", version: 1, seed: 1, decisions: [] }, "version"],
      [{ game: "tiny", version: "1", seed: 1.5, decisions: [] }, "seed"],
      [{ game: "tiny", version: "1", seed: 1, decisions: {} }, "decisions"],
      [{ game: "tiny", version: "1", seed: 1, decisions: [], hashes: [1] }, "hashes"],
    ];
    for (const [doc, path] of cases) {
      const r = parseRecord(doc);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe("invalid_record");
        expect(r.error.path).toBe(path);
      }
    }
  });

  it("replays to the same hashes and refuses an unknown game, a wrong version and an illegal step", () => {
    const decisions = [
      { kind: "add", n: 2 },
      { kind: "add", n: 1 },
      { kind: "add", n: 2 },
    ];
    const first = replay(registry, { game: "tiny", version: "1", config: {}, seed: 9, decisions });
    expect(first.ok).toBe(true);
    if (!first.ok) return;
    expect(first.value.hashes.length).toBe(4);
    expect(first.value.finalHash).toBe(stateHash(first.value.state));
    const again = replay(registry, { game: "tiny", version: "1", config: {}, seed: 9, decisions, hashes: first.value.hashes });
    expect(again.ok && again.value.finalHash).toBe(first.value.finalHash);

    const unknown = replay(registry, { game: "nope", version: "1", config: {}, seed: 9, decisions });
    expect(!unknown.ok && unknown.error.code).toBe("unknown_game");
    const version = replay(registry, { game: "tiny", version: "0", config: {}, seed: 9, decisions });
    expect(!version.ok && version.error.path).toBe("version");
    const illegal = replay(registry, { game: "tiny", version: "1", config: {}, seed: 9, decisions: [decisions[0], { kind: "add", n: 3 }] });
    expect(!illegal.ok && illegal.error.path).toBe("decisions[1]");
    const badConfig = replay(registry, { game: "tiny", version: "1", config: { target: 1000 }, seed: 9, decisions });
    expect(!badConfig.ok && badConfig.error.path).toBe("config.target");
    const mismatch = replay(registry, { game: "tiny", version: "1", config: {}, seed: 9, decisions, finalHash: "ffffffffffffffff" });
    expect(!mismatch.ok && mismatch.error.code).toBe("hash_mismatch");
  });

  it("the expectation's default decision is accepted by apply, but is not a voluntary legal option", () => {
    const cfg = tiny.parseConfig({ timeoutMs: 10 });
    if (!cfg.ok) throw new Error(cfg.error.message);
    const s = tiny.setup(cfg.value, 1);
    expect(tiny.legal(s).some((d) => d.kind === "stall")).toBe(false);
    const out = tiny.apply(s, { kind: "stall" });
    expect(out.ok).toBe(true);
    const noDeadline = tiny.setup(tiny.parseConfig({}).ok ? { seats: 2, target: 10, timeoutMs: null } : (null as never), 1);
    expect(tiny.apply(noDeadline, { kind: "stall" }).ok).toBe(false);
  });
});
