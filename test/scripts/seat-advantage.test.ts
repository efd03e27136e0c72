import { describe, expect, it } from "vitest";
import { runScript } from "./run-script.ts";

describe("npm run seat-advantage", () => {
  it("counts every episode that ends, with its learner's return (dcg pays +1/-1, so the mean is win rate minus loss rate)", () => {
    const r = runScript("seat-advantage.ts", ["--game", "dcg", "--episodes", "60"]);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.split("\n").filter((l) => l.startsWith("| dcg |"));
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      const [win, loss, mean] = row
        .split("|")
        .slice(4, 7)
        .map((c) => Number.parseFloat(c));
      expect(Number.isFinite(mean), row).toBe(true);
      // A dcg game between random players almost never draws: nearly every episode is a win or a loss.
      expect(win! + loss!, row).toBeGreaterThan(80);
      expect(mean!, row).toBeCloseTo((win! - loss!) / 100, 2);
    }
  });
});
