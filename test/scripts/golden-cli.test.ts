import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runScript } from "./run-script.ts";

const dir = mkdtempSync(join(tmpdir(), "cardgym-golden-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("npm run golden (into a folder of the test's own, never test/golden)", () => {
  it("leaves a file whose content is unchanged as it is, bytes included, and rewrites one whose content changed", () => {
    const path = join(dir, "sevens.json");
    const first = runScript("golden.ts", ["sevens", "--dir", dir]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).not.toContain("unchanged");
    const fresh = JSON.parse(readFileSync(path, "utf8")) as { note: string; playthroughs: { config: Record<string, unknown> }[] };

    // The same content with every config's keys in another order (what a change in the order a
    // game's parseConfig fills its fields in gives): not rewritten, so a clean tree stays clean.
    const reordered = { ...fresh, playthroughs: fresh.playthroughs.map((p) => ({ ...p, config: Object.fromEntries(Object.entries(p.config).reverse()) })) };
    const text = JSON.stringify(reordered) + "\n";
    writeFileSync(path, text);
    const again = runScript("golden.ts", ["sevens", "--dir", dir]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/sevens\.json: \d+ playthroughs, \d+ decisions \(sevens-obs-v1\), unchanged/);
    expect(readFileSync(path, "utf8")).toBe(text);

    // Other content is written as before.
    writeFileSync(path, JSON.stringify({ ...fresh, note: "stale" }) + "\n");
    const rewrite = runScript("golden.ts", ["sevens", "--dir", dir]);
    expect(rewrite.code, rewrite.stderr).toBe(0);
    expect(rewrite.stdout).not.toContain("unchanged");
    expect((JSON.parse(readFileSync(path, "utf8")) as { note: string }).note).toBe(fresh.note);
  });

  it("refuses a --dir that does not exist", () => {
    const r = runScript("golden.ts", ["sevens", "--dir", join(dir, "nope")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("no such directory");
  });
});
