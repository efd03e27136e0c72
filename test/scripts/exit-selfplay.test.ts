import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../fixtures/temp-dir.ts";
import { runScript } from "./run-script.ts";

describe("npm run exit:selfplay --search", () => {
  it("refuses a --search that is not k=v pairs or that sets what the script sets itself, before writing anything", () => {
    const dir = tempDir("cardgym-exit-");
    for (const search of ["ptemp=4,value=net", "ptemp=4;random"]) {
      const out = join(dir, "out");
      const run = runScript("exit-selfplay.ts", ["--model", "builtin/dcg-exit-v1", "--out", out, "--search", search]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--search takes k=v,\.\.\. parameters of the guided search other than policy, iters, noise and value/);
      expect(existsSync(out)).toBe(false);
    }
  });
});

describe("npm run exit:selfplay --student (DAgger)", () => {
  it("refuses options that do not go with it and agent specs that do not load, before writing anything", () => {
    const dir = tempDir("cardgym-dagger-");
    const out = join(dir, "out");
    const cases: [string[], RegExp][] = [
      [["--student", "onnx:builtin/dcg-exit-v2", "--explore", "4"], /--explore does not apply with --student/],
      [["--opponent", "mcts"], /--opponent needs --student/],
      [["--student", "onnx:builtin/no-such-model"], /--student: .*no-such-model/],
      [["--student", "random", "--opponent", "mcts:iters=0"], /--opponent: .*iters/],
      [["--student", "random", "--opponent", "nosuchagent"], /--opponent: .*nosuchagent/],
    ];
    for (const [args, message] of cases) {
      const run = runScript("exit-selfplay.ts", ["--model", "builtin/dcg-exit-v2", "--out", out, "--games", "1", "--iters", "2", ...args]);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(existsSync(out)).toBe(false);
    }
  });

  it("labels only the student's decisions, with the teacher's visits, and z is the student's return", () => {
    const out = join(tempDir("cardgym-dagger-"), "out");
    const run = runScript("exit-selfplay.ts", [
      "--model",
      "builtin/dcg-exit-v2",
      "--out",
      out,
      "--games",
      "4",
      "--iters",
      "8",
      "--concurrency",
      "1",
      "--student",
      "onnx:builtin/dcg-exit-v2",
      "--opponent",
      "random",
      "-q",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const meta = JSON.parse(readFileSync(join(out, "meta.json"), "utf8")) as Record<string, unknown>;
    expect(meta).toMatchObject({ student: "onnx:builtin/dcg-exit-v2", opponent: "random", games: 4 });
    expect(meta.agent).toBe("mcts:policy=builtin/dcg-exit-v2,iters=8,noise=0,value=eval");
    const rows = meta.rows as number;
    const actionSize = meta.actionSize as number;
    const z = floats(join(out, "z.f32"));
    const pi = floats(join(out, "pi.f32"));
    const mask = new Uint8Array(readFileSync(join(out, "mask.u8")));
    expect(z.length).toBe(rows);
    // One game after another (one lane): each game's rows carry one return, the student's; with both
    // seats' rows (self-play) a decided game would carry +1 and -1.
    const runs: number[] = [];
    for (let i = 0; i < rows; i++) if (i === 0 || z[i] !== z[i - 1]) runs.push(z[i]!);
    expect(runs.length).toBeLessThanOrEqual(4);
    expect(runs.filter((v) => v > 0).length).toBeLessThanOrEqual(meta.studentWins as number);
    expect(meta.studentWins as number).toBeGreaterThanOrEqual(1); // the champion policy against random
    // Fewer rows than decisions: the opponent's decisions are not labelled.
    expect(rows).toBeGreaterThan(0);
    expect(rows).toBeLessThan((meta.decisions as number) / 2);
    for (let r = 0; r < rows; r++) {
      let sum = 0;
      let legal = 0;
      for (let a = 0; a < actionSize; a++) {
        const p = pi[r * actionSize + a]!;
        if (mask[r * actionSize + a] === 0) expect(p).toBe(0);
        else legal++;
        sum += p;
      }
      expect(legal).toBeGreaterThan(1);
      expect(sum).toBeCloseTo(1, 5);
    }
  });
});

/** A file of float32 rows (copied, so the array starts at offset 0 of its own buffer). */
function floats(path: string): Float32Array {
  return new Float32Array(new Uint8Array(readFileSync(path)).buffer);
}
