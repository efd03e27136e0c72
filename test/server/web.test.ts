import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { buildApp } from "../../env/server/index.ts";

const dirs: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), "cardgym-webroute-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("the web client's static routes", () => {
  it("serves index.html, the bundle and the stylesheet at /, and nothing else from the folder", async () => {
    const web = temp();
    mkdirSync(join(web, "dist"));
    writeFileSync(join(web, "index.html"), "<!doctype html><title>t</title>");
    const bundle = `console.log(${JSON.stringify("x".repeat(5000))});`;
    writeFileSync(join(web, "dist", "app.js"), bundle);
    writeFileSync(join(web, "style.css"), "body{}");
    writeFileSync(join(web, "secret.txt"), "SECRET-CONTENT");
    const app = buildApp({ dataDir: temp(), webDir: web });
    const page = await app.inject({ method: "GET", url: "/" });
    expect(page.statusCode).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.headers["content-security-policy"]).toContain("default-src 'self'");
    expect(page.body).toContain("<title>t</title>");
    const js = await app.inject({ method: "GET", url: "/app.js" });
    expect(js.statusCode).toBe(200);
    expect(js.headers["content-type"]).toMatch(/^text\/javascript/);
    expect(js.body).toBe(bundle);
    const zipped = await app.inject({ method: "GET", url: "/app.js", headers: { "accept-encoding": "gzip, deflate" } });
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(zipped.rawPayload).toString()).toBe(bundle);
    expect(zipped.rawPayload.length).toBeLessThan(bundle.length / 10);
    expect((await app.inject({ method: "GET", url: "/app.css" })).body).toBe("body{}");
    for (const url of ["/secret.txt", "/dist/app.js", "/index.html", "/../package.json", "/%2e%2e/package.json"]) {
      const r = await app.inject({ method: "GET", url });
      expect(r.statusCode, url).toBe(404);
      expect(r.body).not.toContain("SECRET-CONTENT");
    }
    await app.close();
  });

  it("says how to build the bundle when it is missing, and serves nothing without a data dir or with webDir null", async () => {
    const web = temp();
    writeFileSync(join(web, "index.html"), "<!doctype html>");
    const app = buildApp({ dataDir: temp(), webDir: web });
    const js = await app.inject({ method: "GET", url: "/app.js" });
    expect(js.statusCode).toBe(404);
    expect(JSON.parse(js.body).error.code).toBe("web_not_built");
    await app.close();
    for (const options of [{ webDir: web }, { dataDir: temp(), webDir: null }]) {
      const bare = buildApp(options);
      expect((await bare.inject({ method: "GET", url: "/" })).statusCode).toBe(404);
      await bare.close();
    }
  });
});
