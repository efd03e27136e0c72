import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../fixtures/temp-dir.ts";
import { runScript } from "./run-script.ts";

const dir = tempDir("cardgym-logits-");
const model = "models/builtin/dcg-ppo-v1.onnx";

describe("onnx-logits: an unreadable observations file", () => {
  it("is one line naming the file and why, and exit 2, never a bare JSON or fs message", () => {
    const cut = join(dir, "cut.json");
    writeFileSync(cut, "[[0, 1");
    const cases: [string, RegExp][] = [
      [join(dir, "missing.json"), /^error: --obs: cannot read .*missing\.json \(ENOENT\)$/],
      [cut, /^error: --obs: .*cut\.json is not JSON \(/],
      [dir, /^error: --obs: cannot read .* \(EISDIR\)$/],
    ];
    for (const [file, message] of cases) {
      const run = runScript("onnx-logits.ts", ["--game", "dcg", "--model", model, "--obs", file]);
      expect(run.code, file).toBe(2);
      expect(run.stderr.trim().split("\n"), file).toHaveLength(1);
      expect(run.stderr.trim(), file).toMatch(message);
    }
  });
});
