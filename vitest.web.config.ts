import { defineConfig } from "vitest/config";

// test/fixtures/hang-guard.ts reads (and checks) the same variable for the tests' own waits.
const scale = Number(process.env.CARDGYM_TEST_TIME_SCALE || 1);

/**
 * The browser tests (npm run test:web): real Chromium, one file at a time (2-core machines). The
 * timeouts are hang guards, generous for a loaded machine (see vitest.config.ts).
 */
export default defineConfig({
  test: {
    include: ["test/web/**/*.test.ts"],
    // leftover-guard: the run's own temp directory; fails the run on anything left in it or still running.
    globalSetup: ["test/fixtures/leftover-guard.ts", "test/web/setup.ts"],
    testTimeout: 900_000 * scale,
    hookTimeout: 300_000 * scale,
    fileParallelism: false,
  },
});
