/**
 * WebSocket message limits over a real socket: a message over 4096 bytes is answered with `error`
 * `bad_message` and the channel stays open (seat and spectator channels); only a message past the
 * read limit (64 KiB) closes the channel, with 1009.
 */
import { describe, expect, it } from "vitest";
import type WebSocket from "ws";
import { LIVE_LIMITS } from "../../env/live/protocol.ts";
import { socketChannel } from "../../env/live/sockets.ts";
import { sevensSeatChannel, sevensSpectatorChannel } from "../fixtures/live-channels.ts";
import { clientsForFile, liveForFile } from "./helpers.ts";

const server = liveForFile();
const open = clientsForFile();

/** A well-formed sync message padded (with spaces, still valid JSON) to exactly `bytes` bytes. */
function syncOf(bytes: number): string {
  const text = JSON.stringify({ type: "sync" });
  return text.slice(0, -1) + " ".repeat(bytes - text.length) + "}";
}

describe("WebSocket message limits", () => {
  it("a seat's message over 4096 bytes gets bad_message and the channel stays open; 4096 bytes is fine", async () => {
    const { table, c } = await sevensSeatChannel(server, open, 2);
    const over = syncOf(LIVE_LIMITS.maxMessageBytes + 1);
    expect(Buffer.byteLength(over)).toBe(4097);
    c.socket.send(over);
    const err = await c.next((m) => m.type === "error");
    expect(err.error.code).toBe("bad_message");
    expect(err.error.message).toContain("at most 4096 bytes, this one has 4097");
    // Still open: a message of exactly the limit is read and answered with a frame.
    c.socket.send(syncOf(LIVE_LIMITS.maxMessageBytes));
    const f = await c.next((m) => m.type === "frame");
    expect(f.table).toBe(table);
    expect(c.closed).toBeNull();
  });

  it("a spectator's oversize message gets bad_message too; past the read limit the channel closes with 1009", async () => {
    const w = await sevensSpectatorChannel(server, open, 3);
    w.socket.send(syncOf(10_000));
    const err = await w.next((m) => m.type === "error");
    expect(err.error.code).toBe("bad_message");
    expect(err.error.message).toContain("at most 4096 bytes");
    w.socket.send(syncOf(100));
    await w.next((m) => m.type === "spectate");
    const closed = new Promise<number>((resolve) => w.socket.once("close", (code) => resolve(code)));
    w.socket.send(syncOf(LIVE_LIMITS.maxReadBytes + 1));
    expect(await closed).toBe(1009);
  });
});

describe("a client that does not read", () => {
  it("is cut off once more than 4 MiB wait to go out to it; below that its frames are sent", () => {
    const sent: string[] = [];
    let terminated = 0;
    const socket = { OPEN: 1, readyState: 1, bufferedAmount: 0, send: (t: string) => sent.push(t), terminate: () => terminated++, close: () => undefined };
    const channel = socketChannel(socket as unknown as WebSocket, { seat: null, viewer: "spectator" });
    channel.send("frame 1");
    socket.bufferedAmount = LIVE_LIMITS.maxUnsentBytes;
    channel.send("frame 2");
    expect([sent, terminated]).toEqual([["frame 1", "frame 2"], 0]);
    socket.bufferedAmount = LIVE_LIMITS.maxUnsentBytes + 1;
    channel.send("frame 3");
    expect([sent.length, terminated]).toEqual([2, 1]);
  });
});
