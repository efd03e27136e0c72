import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/**
 * Finds tests that depend on the machine's speed: an upper bound asserted on a measured time, a
 * per-test limit or a wait timeout tighter than a hang guard. A slow or loaded machine fails such
 * a test while the code is fine. (A lower bound on a measured time, "not before the deadline", is
 * fine: slowness only makes it longer.) Speed belongs in scripts/bench-*.ts.
 */
export interface Finding {
  readonly file: string;
  readonly line: number;
  readonly text: string;
  readonly why: string;
}

/** The smallest per-test limit or wait timeout that counts as a hang guard, in ms. */
export const MIN_GUARD_MS = 60_000;

const TIME_WORD = String.raw`\b\w*(?:ms|Ms|Millis|elapsed|Elapsed|latency|Latency|duration|Duration|seconds|Seconds|took|slowest|wall)\b`;
const CLOCK = String.raw`(?:performance\.now\(\)|Date\.now\(\)|process\.hrtime)`;

const TS_RULES: readonly { re: RegExp; why: string; limit?: true }[] = [
  {
    re: new RegExp(String.raw`expect\((?:[^;]*?(?:${CLOCK}|${TIME_WORD}))[^;]*?\)\.toBeLessThan(?:OrEqual)?\(`),
    why: "an upper bound on a measured time",
  },
  { re: /^\s*\}, ([0-9][0-9_]*)\);\s*$/, why: "a per-test limit or timer tighter than a hang guard", limit: true },
  { re: /\btimeout: ([0-9][0-9_]*)\b/, why: "a wait timeout tighter than a hang guard", limit: true },
  { re: /\bsetDefaultTimeout\(([0-9][0-9_]*)\)/, why: "a wait timeout tighter than a hang guard", limit: true },
  { re: /\btimeoutMs = ([0-9][0-9_]*)\b/, why: "a wait timeout tighter than a hang guard", limit: true },
  { re: /setTimeout\(\(\) => [^;]*\b(?:destroy|reject|kill)\([^;]*, ([0-9][0-9_]*)\)/, why: "a hang guard timer tighter than a hang guard", limit: true },
];

const PY_RULES: readonly { re: RegExp; why: string; limit?: true }[] = [
  {
    re: /^\s*assert\b.*(?:elapsed|duration|latency|time\.(?:monotonic|perf_counter|time)\(\)).*<(?!<)/,
    why: "an upper bound on a measured time",
  },
  // In seconds: a deadline closer than MIN_GUARD_MS.
  { re: /time\.monotonic\(\) \+ ([0-9.]+)\s*$/, why: "a deadline tighter than a hang guard", limit: true },
];

function files(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".")) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...files(p, ext));
    else if (e.name.endsWith(ext)) out.push(p);
  }
  return out;
}

/** The findings in one file's text (`name` says which rules apply: .py or TypeScript). */
export function scanText(name: string, text: string): Finding[] {
  const findings: Finding[] = [];
  const python = name.endsWith(".py");
  text.split("\n").forEach((line, i) => {
    if (python) {
      for (const r of PY_RULES) {
        const m = r.re.exec(line);
        if (m && !(r.limit && Number(m[1]) * 1000 >= MIN_GUARD_MS)) findings.push({ file: name, line: i + 1, text: line.trim(), why: r.why });
      }
      return;
    }
    for (const r of TS_RULES) {
      const m = r.re.exec(line);
      if (!m) continue;
      if (r.limit && Number(m[1]!.replace(/_/g, "")) >= MIN_GUARD_MS) continue;
      findings.push({ file: name, line: i + 1, text: line.trim(), why: r.why });
    }
  });
  return findings;
}

/** Every finding under `root`'s test/ (TypeScript, browser tests included) and python/tests/. */
export function scanRepo(root: string): Finding[] {
  const targets = [...files(join(root, "test"), ".ts"), ...files(join(root, "python", "tests"), ".py")];
  return targets.flatMap((p) => scanText(relative(root, p), readFileSync(p, "utf8")));
}
