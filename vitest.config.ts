import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// test/fixtures/hang-guard.ts reads (and checks) the same variable for the tests' own waits.
const scale = Number(process.env.CARDGYM_TEST_TIME_SCALE || 1);

/**
 * The longest files, longest first. They start before the rest, so that none of them starts last
 * and runs alone on one core while the other cores are done. Only an order: a file not listed
 * still runs, a listed one that is gone is ignored. Vitest orders by the durations of earlier runs
 * when it has them (its cache in node_modules), but a fresh CI clone has none, and it then starts
 * the largest files first, which put a short file that plays long games (the dcg leak test) last.
 */
const LONGEST_FILES = [
  "test/conformance/conformance.test.ts",
  "test/package/npm-package.test.ts",
  "test/scripts/help.test.ts",
  "test/docs/readme-commands.test.ts",
  "test/scripts/arena-shards.test.ts",
  "test/scripts/sprt-arena.test.ts",
  "test/live/leak-all-channels-dcg.test.ts",
  "test/live/leak-all-channels.test.ts",
];

class LongestFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = LONGEST_FILES.findIndex((name) => f.moduleId.endsWith(`/${name}`));
      return i < 0 ? LONGEST_FILES.length : i;
    };
    const sorted = await super.sort(files);
    return sorted
      .map((f, i) => ({ f, i, rank: rank(f) }))
      .sort((a, b) => a.rank - b.rank || a.i - b.i)
      .map((x) => x.f);
  }
}

// Per-test and per-hook timeouts are hang guards only (no test depends on speed): generous enough
// for a machine ten times slower than a developer's; CARDGYM_TEST_TIME_SCALE scales them further.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The browser tests need Chromium and run on their own: npm run test:web (vitest.web.config.ts).
    exclude: ["test/web/**", "**/node_modules/**"],
    // The run's own temp directory; fails the run on anything left in it or still running.
    globalSetup: ["test/fixtures/leftover-guard.ts"],
    // One test file per core. Vitest's default is one fewer than the cores, which on a 2-core CI
    // machine runs the files one at a time and leaves a core idle while a file computes on one;
    // the vitest process itself only collects results meanwhile.
    maxWorkers: availableParallelism(),
    sequence: { sequencer: LongestFilesFirst },
    testTimeout: 900_000 * scale,
    hookTimeout: 300_000 * scale,
  },
});
