import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runScript } from "./run-script.ts";

describe("npm run exit:selfplay --search", () => {
  it("refuses a --search that is not k=v pairs or that sets what the script sets itself, before writing anything", () => {
    const dir = mkdtempSync(join(tmpdir(), "cardgym-exit-"));
    for (const search of ["ptemp=4,value=net", "ptemp=4;random"]) {
      const out = join(dir, "out");
      const run = runScript("exit-selfplay.ts", ["--model", "builtin/dcg-exit-v1", "--out", out, "--search", search]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--search takes k=v,\.\.\. parameters of the guided search other than policy, iters, noise and value/);
      expect(existsSync(out)).toBe(false);
    }
  });
});
