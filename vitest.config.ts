import { defineConfig } from "vitest/config";

// test/fixtures/hang-guard.ts reads (and checks) the same variable for the tests' own waits.
const scale = Number(process.env.CARDGYM_TEST_TIME_SCALE || 1);

// Per-test and per-hook timeouts are hang guards only (no test depends on speed): generous enough
// for a machine ten times slower than a developer's; CARDGYM_TEST_TIME_SCALE scales them further.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The browser tests need Chromium and run on their own: npm run test:web (vitest.web.config.ts).
    exclude: ["test/web/**", "**/node_modules/**"],
    testTimeout: 900_000 * scale,
    hookTimeout: 300_000 * scale,
  },
});
