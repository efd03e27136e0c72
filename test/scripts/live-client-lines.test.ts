import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { LineSource } from "../../scripts/live-client.ts";
import { waitUntil } from "../fixtures/hang-guard.ts";

describe("the terminal client's input lines (npm run play -- ... --agents human,...)", () => {
  it("holds a bounded number of lines from endless input (yes 1 | npm run play ...) and reads on as they are used", async () => {
    let produced = 0;
    let paused = false;
    const input = new Readable({
      highWaterMark: 64,
      read() {
        produced++;
        this.push("1\n".repeat(100));
      },
    });
    input.on("pause", () => (paused = true));
    input.on("resume", () => (paused = false));
    const lines = new LineSource(input);
    try {
      // Before the fix it read on for ever (a yes pipe filled the heap and crashed Node).
      await waitUntil(() => paused || produced > 1000, "the input paused, or 100000 lines read ahead");
      expect(paused).toBe(true);
      expect(lines.ahead).toBeGreaterThanOrEqual(LineSource.MAX_AHEAD);
      expect(lines.ahead).toBeLessThanOrEqual(LineSource.MAX_AHEAD + 100); // at most the rest of one chunk
      // Used lines make room: the input resumes, every line comes through in order, and it pauses again.
      for (let i = 0; i < 2 * LineSource.MAX_AHEAD; i++) expect(await lines.next()).toBe("1");
      await waitUntil(() => paused, "the input paused again");
      expect(lines.ahead).toBeLessThanOrEqual(LineSource.MAX_AHEAD + 100);
    } finally {
      lines.close();
      input.destroy();
    }
  });

  it("hands out a short piped input line by line, then null", async () => {
    const lines = new LineSource(Readable.from(["3\n", "B2\n"]));
    expect(await lines.next()).toBe("3");
    expect(await lines.next()).toBe("B2");
    expect(await lines.next()).toBe(null);
  });
});
