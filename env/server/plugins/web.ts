import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from "fastify";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { PACKAGE_ROOT } from "../../../agents/paths.ts";

/** Where the browser client lives: web/index.html, web/style.css and the bundle web/dist/app.js. */
export const DEFAULT_WEB_DIR = join(PACKAGE_ROOT, "web");

const FILES: Readonly<Record<string, { path: string; type: string }>> = {
  "/": { path: "index.html", type: "text/html; charset=utf-8" },
  "/app.js": { path: "dist/app.js", type: "text/javascript; charset=utf-8" },
  "/app.css": { path: "style.css", type: "text/css; charset=utf-8" },
};

/**
 * The browser client (docs/web.md) at `/`, from the same server as the API: three static files,
 * read once per change (mtime) and kept in memory, with a gzip copy for clients that accept it. The bundle is built by `npm start`
 * (scripts/build-web.mjs); without it `/app.js` answers 404 saying how to build it. Nothing else
 * under `/` is served: no directory listing, no path from the URL ever reaches the file system.
 */
const webRoutes: FastifyPluginCallback<{ dir: string }> = (app, { dir }, done) => {
  const cache = new Map<string, { mtimeMs: number; body: Buffer; gzip: Buffer | null }>();
  /** The file and its gzip form (made once per change, for files worth compressing). */
  const read = (rel: string): { body: Buffer; gzip: Buffer | null } | null => {
    const path = join(dir, rel);
    let mtimeMs: number;
    try {
      mtimeMs = statSync(path).mtimeMs;
    } catch {
      return null;
    }
    const hit = cache.get(rel);
    if (hit && hit.mtimeMs === mtimeMs) return hit;
    const body = readFileSync(path);
    const entry = { mtimeMs, body, gzip: body.length > 1024 ? gzipSync(body) : null };
    cache.set(rel, entry);
    return entry;
  };
  const serve = (file: { path: string; type: string }, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const found = read(file.path);
    if (found === null) {
      return reply
        .code(404)
        .type("application/json; charset=utf-8")
        .send(
          JSON.stringify({
            error: { code: "web_not_built", message: "the web client is not built here; run `npm start` (or `npm run build:web`) from a checkout" },
          }),
        );
    }
    const gzip = found.gzip !== null && /\bgzip\b/.test(String(request.headers["accept-encoding"] ?? ""));
    if (gzip) reply.header("content-encoding", "gzip");
    return reply
      .code(200)
      .type(file.type)
      .header("vary", "accept-encoding")
      .header("cache-control", "no-cache")
      .header("x-content-type-options", "nosniff")
      .header("content-security-policy", "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'")
      .send(gzip ? found.gzip : found.body);
  };
  for (const [url, file] of Object.entries(FILES)) app.get(url, (request, reply) => serve(file, request, reply));
  done();
};

export default webRoutes;
