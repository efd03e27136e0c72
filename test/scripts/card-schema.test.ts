import { statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot, runScript } from "./run-script.ts";

const PUBLISHED = ["docs/card-schema.json", "docs/config-schemas.json", "docs/board-file.schema.json"];

describe("scripts/card-schema.ts", () => {
  it("refuses a mistyped flag with its usage and writes nothing (a typo of --check must not rewrite the published files)", () => {
    const before = PUBLISHED.map((f) => statSync(join(repoRoot, f)).mtimeMs);
    const r = runScript("card-schema.ts", ["--chek"]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(/--chek/);
    expect(r.stderr).toMatch(/usage: npx tsx scripts\/card-schema\.ts \[--check\]/);
    expect(PUBLISHED.map((f) => statSync(join(repoRoot, f)).mtimeMs)).toEqual(before);
  });

  it("--check passes on the published files and --help prints the usage", () => {
    expect(runScript("card-schema.ts", ["--check"]).code).toBe(0);
    const help = runScript("card-schema.ts", ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: /);
  });
});
