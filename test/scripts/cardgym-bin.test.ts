import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runScript } from "./run-script.ts";
import { commandLine, nameCommands } from "../../scripts/cli.ts";

/**
 * The npm package's `cardgym` bin (scripts/cardgym.ts) runs the checkout's programs as its own
 * commands; a user of the package has no npm scripts, so its messages must name the commands as
 * `cardgym <command>`, which they can type. (The package itself is built and installed by
 * test/package/npm-package.test.ts; this runs the same entry from the checkout.)
 */
describe("the cardgym bin", () => {
  it("names its commands in usage lines, errors and hints as the bin's, not as npm scripts", () => {
    const help = runScript("cardgym.ts", ["play", "--help"]);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/^usage: cardgym play <game> \[--seed N\]/);
    expect(help.stdout).toMatch(/\n {7}cardgym play --connect URL/);
    expect(help.stdout).not.toMatch(/npm (run|start)/);

    const typo = runScript("cardgym.ts", ["serve", "--prot", "1"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/'--prot'[\s\S]*\nusage: cardgym serve \[--host H\]/);

    const dir = mkdtempSync(join(tmpdir(), "cardgym-bin-"));
    try {
      const played = runScript("cardgym.ts", ["play", "sevens", "--seed", "1", "--board", "end", "--record", join(dir, "g.json")]);
      expect(played.code, played.stderr).toBe(0);
      expect(played.stdout).toContain(`(cardgym replay ${join(dir, "g.json")})`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("leaves other commands and a checkout's own messages as they are", () => {
    expect(commandLine("npm run arena -- --game dcg")).toBe("npm run arena -- --game dcg");
    nameCommands({ "npm run arena": "cardgym arena", "npm start": "cardgym serve" });
    expect(commandLine("usage: npm run arena -- --game <id>; npm run arena:report -- --history F; (npm start)")).toBe(
      "usage: cardgym arena --game <id>; npm run arena:report -- --history F; (cardgym serve)",
    );
  });
});
