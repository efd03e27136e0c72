import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Builds the browser client and copies what the server serves at `/` (env/server/plugins/web.ts: the page,
 * its stylesheet and the bundle) into `<root>/web/`, where a packaged server looks for it
 * (PACKAGE_ROOT/web), so the npm package and the wheel serve the same client as a checkout.
 */
export function copyWebClient(root: string): void {
  execFileSync(process.execPath, [join(ROOT, "scripts", "build-web.mjs"), "--quiet"], { stdio: "inherit" });
  mkdirSync(join(root, "web", "dist"), { recursive: true });
  for (const file of ["index.html", "style.css", join("dist", "app.js")]) cpSync(join(ROOT, "web", file), join(root, "web", file));
}
