import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../fixtures/temp-dir.ts";
import { buildApp } from "../../env/server/index.ts";
import { Client, injectTransport, maskedPicker, tensor } from "./client.ts";

/**
 * Card-set files through the server: `config.cardSetFile` names a file in the server's card-set
 * directory (here test/fixtures/cards, which is not shipped); the server inlines it as
 * `config.cardSet`, so the JSON-only cards play and the session's config replays without the file.
 */
const FIXTURES = fileURLToPath(new URL("../fixtures/cards", import.meta.url));
let app: FastifyInstance;
let client: Client;
beforeAll(() => {
  app = buildApp({ cardSetDir: FIXTURES });
  client = new Client(injectTransport(app));
});
afterAll(async () => {
  await app.close();
});

describe("cardSetFile in a session config", () => {
  it("is read from the card-set directory and inlined; episodes with the user book run to the end", async () => {
    const created = await client.ok("POST", "/v1/sessions", {
      game: "dcg",
      numEnvs: 2,
      seed: 4,
      config: { cardSetFile: "storm-set.json", books: ["storm", "storm"] },
    });
    expect(Object.hasOwn(created.config, "cardSetFile")).toBe(false);
    expect(created.config.cardSet.cards.map((c: { id: string }) => c.id)).toEqual(["storm-caller", "tide-wall"]);
    expect(created.config.books).toEqual(["storm", "storm"]);
    const A = created.spec.action.size as number;
    const pick = maskedPicker(4);
    let r = await client.call("POST", `/v1/sessions/${created.session}/reset`);
    const done = [false, false];
    for (let t = 0; t < 20_000 && done.some((d) => !d); t++) {
      r = await client.call("POST", `/v1/sessions/${created.session}/step`, { actions: pick(tensor(r.body.mask) as Uint8Array, 2, A) });
      expect(r.status, JSON.stringify(r.body.error ?? "")).toBe(200);
      const term = tensor(r.body.terminated);
      const trunc = tensor(r.body.truncated);
      for (let i = 0; i < 2; i++) if (term[i] || trunc[i]) done[i] = true;
    }
    expect(done).toEqual([true, true]);
  });

  it("refuses paths outside the directory, missing or unreadable files and bad card data, with clear messages", async () => {
    const outside = tempDir("cardgym-cards-");
    writeFileSync(join(outside, "secret.json"), "{}");
    const cases: [unknown, RegExp][] = [
      ["../cards-elsewhere.json", /is outside the card-set directory/],
      ["sub/../../storm-set.json", /is outside the card-set directory/],
      [join(outside, "secret.json"), /must be relative to the card-set directory/],
      ["storm-set.txt", /is not a \.json file/],
      ["nope.json", /no card-set file "nope\.json"/],
      [42, /must be a file name/],
    ];
    for (const [file, message] of cases) {
      const r = await client.call("POST", "/v1/sessions", { game: "dcg", config: { cardSetFile: file } });
      expect(r.status, String(file)).toBe(400);
      expect(r.body.error.code).toBe("invalid_config");
      expect(r.body.error.message).toMatch(message);
    }
    const both = await client.call("POST", "/v1/sessions", { game: "dcg", config: { cardSetFile: "storm-set.json", cardSet: {} } });
    expect(both.body.error.message).toMatch(/either cardSet \(inline\) or cardSetFile, not both/);
  });

  it("serves the shipped vocabulary set from the default card-set directory (cards/)", async () => {
    const shipped = buildApp({});
    const c = new Client(injectTransport(shipped));
    const created = await c.ok("POST", "/v1/sessions", { game: "dcg", seed: 2, config: { cardSetFile: "vocabulary.json", books: ["mimicry", "wardens"] } });
    expect(created.config.cardSet.cards.map((x: { id: string }) => x.id)).toContain("mimic");
    expect(created.config.books).toEqual(["mimicry", "wardens"]);
    const r = await c.call("POST", `/v1/sessions/${created.session}/reset`);
    expect(r.status).toBe(200);
    await shipped.close();
  });

  it("reports invalid JSON and invalid card data from the file with the JSON path", async () => {
    const dir = tempDir("cardgym-set-");
    writeFileSync(join(dir, "broken.json"), "{ not json");
    writeFileSync(join(dir, "deep.json"), "[".repeat(200_000) + "]".repeat(200_000));
    writeFileSync(join(dir, "bad.json"), JSON.stringify({ cards: [{ id: "oops", name: "Oops", kind: "rubric", cost: 9, attack: 1, life: 1 }] }));
    // A symlink inside the directory that points outside it is refused too.
    const outside = tempDir("cardgym-outside-");
    writeFileSync(join(outside, "secret.json"), "{}");
    symlinkSync(join(outside, "secret.json"), join(dir, "link.json"));
    const other = buildApp({ cardSetDir: dir });
    const c = new Client(injectTransport(other));
    const broken = await c.call("POST", "/v1/sessions", { game: "dcg", config: { cardSetFile: "broken.json" } });
    expect(broken.status).toBe(400);
    expect(broken.body.error.message).toMatch(/^config\.cardSetFile: "broken\.json" is not valid JSON/);
    // 400 KB of nested arrays: refused before anything recursive (the copy to a session worker) sees it.
    const deep = await c.call("POST", "/v1/sessions", { game: "dcg", config: { cardSetFile: "deep.json" } });
    expect(deep.status).toBe(400);
    expect(deep.body.error.message).toBe(`config.cardSetFile: "deep.json": cardSet${"[0]".repeat(32)}: nested deeper than 32 levels`);
    expect((await c.call("POST", "/v1/sessions", { game: "dcg" })).status).toBe(201);
    const link = await c.call("POST", "/v1/sessions", { game: "dcg", config: { cardSetFile: "link.json" } });
    expect(link.body.error.message).toMatch(/"link\.json" is outside the card-set directory/);
    const bad = await c.call("POST", "/v1/sessions", { game: "dcg", config: { cardSetFile: "bad.json" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^cardSet\.cards\[0\] \(oops\)\.cost: expected an integer in 0\.\.3/);
    await other.close();
  });
});
