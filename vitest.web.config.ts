import { defineConfig } from "vitest/config";

/** The browser tests (npm run test:web): real Chromium, one file at a time (2-core machines). */
export default defineConfig({
  test: {
    include: ["test/web/**/*.test.ts"],
    globalSetup: ["test/web/setup.ts"],
    testTimeout: 120_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
