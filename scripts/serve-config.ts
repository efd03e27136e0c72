/** Pieces of `npm start`'s configuration that are worth testing on their own. */
import { readFileSync } from "node:fs";
import { UsageError } from "./cli.ts";

/** The longest token (HTTP servers, Node's included, refuse headers much past a few KiB). */
const MAX_TOKEN = 1024;

/** The bearer token from --token, --token-file or CARDGYM_TOKEN (at most one of them), or null. */
export function readToken(flag: string | undefined, file: string | undefined, env: string | undefined = process.env.CARDGYM_TOKEN): string | null {
  const given = [flag !== undefined, file !== undefined, env !== undefined && env !== ""].filter(Boolean).length;
  if (given > 1) throw new UsageError("give the token one way: --token, --token-file or CARDGYM_TOKEN");
  let token: string | null = flag ?? (env === undefined || env === "" ? null : env);
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      throw new UsageError(`--token-file ${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? "error"})`);
    }
    token = (text.split(/\r?\n/)[0] ?? "").trim();
  }
  if (token !== null && token.length < 8) throw new UsageError("the token (--token, --token-file or CARDGYM_TOKEN) must be at least 8 characters");
  // It travels in an Authorization header: a token no client can send would lock every client out.
  if (token !== null && (token.length > MAX_TOKEN || !/^[\x20-\x7e]+$/.test(token))) {
    throw new UsageError(
      `the token (--token, --token-file or CARDGYM_TOKEN) must be at most ${MAX_TOKEN} printable ASCII characters (it is sent in an Authorization header)`,
    );
  }
  return token;
}

/** 127.0.0.0/8, ::1 (also IPv4-mapped) and localhost: addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, "");
  if (h === "localhost" || h === "::1" || h === "0:0:0:0:0:0:0:1") return true;
  const v4 = h.startsWith("::ffff:") ? h.slice(7) : h;
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(v4);
  return m !== null && m[1] === "127" && m.slice(2).every((x) => Number(x) <= 255);
}
