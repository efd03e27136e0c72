import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { http, liveForFile } from "./helpers.ts";

// A cursor or a wait that is not a whole number is refused with a typed 400 on every route that
// reads one. Before, `since=abc` or `since=-1` was read as 0 (the whole log again) or as "now"
// without a word on the routes that had no query schema, so a client's bug went unnoticed.
const server = liveForFile();

async function table(): Promise<{ id: string; token: string }> {
  const made = await server.create({ game: "sevens", seats: ["human", "human", "human"], seed: 3 });
  expect(made.status).toBe(201);
  return { id: made.body.table, token: made.body.tokens["0"] };
}

/** The status and body a WebSocket's upgrade request gets when the server answers it over HTTP instead of upgrading. */
function refusedUpgrade(url: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.on("unexpected-response", (_req, res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
    });
    socket.on("open", () => {
      socket.close();
      reject(new Error(`${url} was upgraded`));
    });
    socket.on("error", () => undefined);
  });
}

const codeOf = (body: any): unknown => body?.error?.code ?? body?.code;

describe("cursor and wait query values", () => {
  it("a since that is not a whole number is a 400 bad_request naming it, on every HTTP route that reads one", async () => {
    const { id, token } = await table();
    for (const bad of ["abc", "-1", "1.5", "1e3", "", "99999999999"]) {
      const q = `since=${encodeURIComponent(bad)}`;
      for (const path of [`/v1/tables/${id}/log?${q}`, `/v1/tables/${id}/spectate?${q}`, `/v1/tables/${id}/seats/0/frame?${q}&token=${token}`]) {
        const got = await http(server.live.base, "GET", path);
        expect(got.status, path).toBe(400);
        expect(codeOf(got.body), path).toBe("bad_request");
        expect(JSON.stringify(got.body), path).toContain("since");
      }
    }
  });

  it("wait=abc is a 400 bad_request on the long-poll routes", async () => {
    const { id, token } = await table();
    for (const path of [`/v1/tables/${id}/spectate?wait=abc`, `/v1/tables/${id}/seats/0/frame?wait=abc&token=${token}`]) {
      const got = await http(server.live.base, "GET", path);
      expect(got.status, path).toBe(400);
      expect(codeOf(got.body), path).toBe("bad_request");
    }
  });

  it("a bad since on a seat's or a spectator's WebSocket is refused with a 400 before the upgrade", async () => {
    const { id, token } = await table();
    const ws = server.live.ws;
    for (const url of [`${ws}/v1/tables/${id}/seats/0/ws?token=${token}&since=abc`, `${ws}/v1/tables/${id}/spectate?since=-1`]) {
      const got = await refusedUpgrade(url);
      expect(got.status, url).toBe(400);
      expect(codeOf(got.body), url).toBe("bad_request");
    }
  });

  it("whole-number cursors still work on every route", async () => {
    const { id, token } = await table();
    for (const path of [`/v1/tables/${id}/log?since=0`, `/v1/tables/${id}/spectate?since=0`, `/v1/tables/${id}/seats/0/frame?since=0&token=${token}`]) {
      expect((await http(server.live.base, "GET", path)).status, path).toBe(200);
    }
  });
});
