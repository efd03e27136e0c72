/**
 * tsx scripts/profile-files.ts [--top N] <file.cpuprofile>...
 *
 * Where a CPU profile (`node --cpu-prof`, run under tsx so that every module keeps its own file)
 * spends its time, by source file of this checkout: each file's share of the sampled self time,
 * largest first, with the time outside the checkout (Node, packages, garbage collection, idle)
 * summed on one line. Several profiles are added up. It picks the files whose per-step work is
 * worth exempting from the non-null lint rule (docs/quality-bar.md, "Non-null assertions"). A benchmark aid, not a test.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { intArg, main, parseCli, printUsage, UsageError } from "./cli.ts";

const USAGE = "tsx scripts/profile-files.ts [--top N] <file.cpuprofile>...";

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly url: string };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

/** Microseconds of self time per script url in one profile. */
function selfTimeByUrl(profile: Profile): Map<string, number> {
  const urlOf = new Map(profile.nodes.map((n) => [n.id, n.callFrame.url]));
  const out = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const url = urlOf.get(id) ?? "";
    out.set(url, (out.get(url) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  return out;
}

main(() => {
  const { values, positionals } = parseCli(USAGE, { top: { type: "string" } });
  if (values.help) return printUsage(USAGE);
  if (positionals.length === 0) throw new UsageError(`no profile given\nusage: ${USAGE}`);
  const top = intArg(values.top, "top", 30, 1, 10_000);
  const root = pathToFileURL(resolve(".")).href + "/";
  const byFile = new Map<string, number>();
  let total = 0;
  for (const file of positionals) {
    for (const [url, us] of selfTimeByUrl(JSON.parse(readFileSync(file, "utf8")) as Profile)) {
      const key = url.startsWith(root) && !url.includes("/node_modules/") ? url.slice(root.length) : "(outside this checkout)";
      byFile.set(key, (byFile.get(key) ?? 0) + us);
      total += us;
    }
  }
  const rows = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, top);
  console.log(`${(total / 1e6).toFixed(1)} s sampled in ${positionals.length} profile(s)`);
  for (const [file, us] of rows) console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${file}`);
});
