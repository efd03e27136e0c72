import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CHROMIUM } from "./browser.ts";

/** Builds the web bundle the server serves, once for all browser tests; refuses clearly without a browser. */
export default function setup(): void {
  const root = join(import.meta.dirname, "..", "..");
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: run 'bash scripts/browser-env.sh' (as root: apt-get install chromium), or set CARDGYM_CHROMIUM`);
  }
  execFileSync(process.execPath, [join(root, "scripts", "build-web.mjs"), "--quiet"], { stdio: "inherit" });
}
