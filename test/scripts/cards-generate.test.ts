import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runScript } from "./run-script.ts";

describe("npm run cards:generate -- --balance", () => {
  it("names the books outside the band when a pool misses it (docs/cards.md's seed 7 does), and exits 1", () => {
    const dir = mkdtempSync(join(tmpdir(), "cards-generate-"));
    try {
      const r = runScript("cards-generate.ts", ["--seed", "7", "--cards", "40", "--out", join(dir, "gen-7.json"), "--balance", "120"]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/every book's score in 0\.3\.\.0\.7: NOT balanced \(outside: gen-7-book-3 0\.2\d\d\); the first seat scores 0\.\d+\n/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
