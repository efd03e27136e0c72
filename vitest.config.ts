import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The browser tests need Chromium and run on their own: npm run test:web (vitest.web.config.ts).
    exclude: ["test/web/**", "**/node_modules/**"],
    testTimeout: 600_000,
    hookTimeout: 60_000,
  },
});
