/**
 * npm run play -- <game> [--seed N] [--seats N] [--agents a,b,...] [--config JSON] [--cards FILE] [--board-file FILE] [--record out.json] [--board turn|every|end]
 * Plays one whole game between agents and prints every decision, the board and the result.
 * --cards FILE (dcg): a card-set file ({cards, books}, docs/cards.md), inlined as config.cardSet.
 * --board-file FILE (dcg): a board file (a position, docs/board-file.md), inlined as config.board.
 * A "human" seat in --agents is played in this terminal: the game runs as a live table on an
 * in-process server (docs/live.md) and this terminal is that seat's client.
 * npm run play -- --connect URL --table ID --seat N --token T plays a seat of a remote table.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { buildApp } from "../env/server/index.ts";
import { LineSource, playSeat } from "./live-client.ts";
import { deriveSeed, parseJsonText, unwrap } from "../engine/core/index.ts";
import { registry } from "../engine/games.ts";
import { runMatch } from "../agents/match.ts";
import { createAgentReady, splitAgentList } from "../agents/spec.ts";
import { adapters } from "../env/games/index.ts";
import { specOf } from "../env/spec.ts";
import { commandLine, intArg, jsonArg, main, outFileArg, parseCli, runTempDir, UsageError, printUsage } from "./cli.ts";

const USAGE =
  "npm run play -- <game> [--seed N] [--seats N] [--agents spec,spec,...] [--config JSON] [--cards FILE] [--board-file FILE] [--record out.json] [--board turn|every|end] [--turn-seconds S]\n" +
  "       npm run play -- --connect URL --table ID --seat N --token T\n" +
  'an agent named "human" is a seat you play in this terminal (numbered decisions; type the number)';

main(async () => {
  const { values, positionals } = parseCli(USAGE, {
    seed: { type: "string" },
    seats: { type: "string" },
    agents: { type: "string" },
    config: { type: "string" },
    cards: { type: "string" },
    "board-file": { type: "string" },
    record: { type: "string" },
    board: { type: "string" },
    quiet: { type: "boolean", short: "q" },
    connect: { type: "string" },
    table: { type: "string" },
    seat: { type: "string" },
    token: { type: "string" },
    "turn-seconds": { type: "string" },
  });
  if (values.connect !== undefined) {
    if (!values.table || values.seat === undefined || !values.token) throw new UsageError(`--connect needs --table ID --seat N --token T\nusage: ${USAGE}`);
    if (!/^https?:\/\//.test(values.connect)) throw new UsageError(`--connect takes the server's http(s):// URL, got "${values.connect}"`);
    const seat = intArg(values.seat, "seat", 0, 0, 7);
    const url = `${values.connect.replace(/^http/, "ws").replace(/\/$/, "")}/v1/tables/${encodeURIComponent(values.table)}/seats/${seat}/ws?token=${encodeURIComponent(values.token)}`;
    const lines = new LineSource();
    const result = await playSeat({ url, lines });
    lines.close();
    return result.returns === null ? 1 : 0;
  }
  if (values.help) return printUsage(USAGE, `games: ${registry.ids().join(", ")}`);
  if (values.record !== undefined) outFileArg("--record", values.record);
  if (positionals.length !== 1) throw new UsageError(`name exactly one game (${registry.ids().join(", ")})\nusage: ${USAGE}`);
  const game = unwrap(registry.get(positionals[0]!));
  const seed = intArg(values.seed, "seed", 1);
  const rawConfig = jsonArg(values.config, "config") as Record<string, unknown>;
  if (rawConfig === null || typeof rawConfig !== "object" || Array.isArray(rawConfig)) throw new UsageError("--config must be a JSON object");
  const seated = values.seats === undefined ? rawConfig : { ...rawConfig, seats: intArg(values.seats, "seats", 0) };
  const carded = values.cards === undefined ? seated : { ...seated, cardSet: readJsonFile("--cards", values.cards) };
  const config = values["board-file"] === undefined ? carded : { ...carded, board: readJsonFile("--board-file", values["board-file"]) };
  const parsed = game.parseConfig(config);
  if (!parsed.ok) throw new UsageError(`${game.info.id}: ${parsed.error.message}`);
  const seats = parsed.value.seats as number;
  const specs = splitAgentList(values.agents ?? "random");
  if (specs.length !== 1 && specs.length !== seats) throw new UsageError(`--agents names ${specs.length} agents; give one (for every seat) or ${seats}`);
  // A person's game gets a deal nobody knows (the server draws its seed, 53 random bits) unless
  // --seed names one: with seed 1 by default every game a person played here was the same deal.
  if (specs.includes("human")) {
    return playHuman(game.info.id, parsed.value as Record<string, unknown>, values.seed === undefined ? undefined : seed, seats, specs, values);
  }
  const adapter = adapters.get(game.info.id);
  const host = adapter ? { adapter, actionSpecHash: specOf(adapter).actionSpecHash } : {};
  const agents = [];
  for (let seat = 0; seat < seats; seat++) {
    const spec = specs.length === 1 ? specs[0]! : specs[seat]!;
    const made = await createAgentReady(spec, { seed: deriveSeed(seed, "play-agents"), seat, game: game.info.id, ...host });
    if (!made.ok) throw new UsageError(made.error.message);
    agents.push(made.value);
  }
  const board = values.board ?? "turn";
  if (!["turn", "every", "end"].includes(board)) throw new UsageError(`--board must be turn, every or end, got "${board}"`);
  const quiet = values.quiet ?? false;

  console.log(
    `${game.info.title} (${game.info.id} v${game.info.version}), seed ${seed}, ${seats} seat${seats === 1 ? "" : "s"}: ${agents.map((a, i) => `${i}=${a.name}`).join(" ")}`,
  );
  if (!quiet) console.log(game.render(game.setup(parsed.value, seed)));
  const result = await runMatch({
    game,
    config: parsed.value,
    seed,
    agents,
    onDecision: (e) => {
      if (quiet) return;
      console.log(`#${String(e.step + 1).padStart(4)}  seat ${e.seat}: ${e.label}${e.timedOut ? " (timed out: default applied)" : ""}`);
      const next = game.actor(e.after);
      const show = board === "every" || (board === "turn" && (next === "terminal" || next !== e.seat || seats === 1));
      if (show && next !== "terminal") console.log(game.render(e.after));
    },
  });
  console.log(game.render(result.finalState));
  console.log(`result after ${result.decisions} decisions: ${result.returns.map((r, i) => `seat ${i}: ${fmt(r)}`).join(", ")}`);
  console.log(`final state hash ${result.finalHash}`);
  if (values.record) {
    writeFileSync(values.record, JSON.stringify(result.record, null, 1) + "\n");
    console.log(commandLine(`record written to ${values.record} (npm run replay -- ${values.record})`));
  }
});

function fmt(x: number): string {
  return Number.isInteger(x) ? (x > 0 ? `+${x}` : String(x)) : x.toFixed(3);
}

/** A card-set or board file's data; unreadable or non-JSON files are one-line usage errors. */
function readJsonFile(flag: string, file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(`${flag}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  try {
    return parseJsonText(text);
  } catch (e) {
    throw new UsageError(`${flag}: ${file} is not JSON (${(e as Error).message})`);
  }
}

/**
 * People in the terminal: the game runs as a live table on a loopback server inside this process
 * (a throwaway data dir), and each "human" seat is played through the table client, so the
 * terminal shows exactly what that seat may see.
 */
async function playHuman(
  gameId: string,
  config: Record<string, unknown>,
  seed: number | undefined,
  seats: number,
  specs: string[],
  values: { record?: string; "turn-seconds"?: string },
): Promise<number> {
  const seatSpecs = Array.from({ length: seats }, (_, i) => (specs.length === 1 ? specs[0]! : specs[i]!));
  // Removed however the run ends, Ctrl-C included (a human seat waits for typing).
  const temp = runTempDir("cardgym-play-");
  const dataDir = temp.dir;
  const app = buildApp({ dataDir });
  const lines = new LineSource();
  try {
    const base = await app.listen({ host: "127.0.0.1", port: 0 });
    const turnMs = values["turn-seconds"] === undefined ? null : intArg(values["turn-seconds"], "turn-seconds", 60, 1, 86_400) * 1000;
    const res = await app.inject({
      method: "POST",
      url: "/v1/tables",
      headers: { "content-type": "application/json", accept: "application/json" },
      payload: { game: gameId, config, seats: seatSpecs, ...(seed === undefined ? {} : { seed }), deadlines: { turnMs, graceMs: 86_400_000 } },
    });
    const made = JSON.parse(res.body);
    if (res.statusCode !== 201) throw new UsageError(`${made.error.code}: ${made.error.message}`);
    const humans = seatSpecs.flatMap((s, i) => (s === "human" ? [i] : []));
    const ws = base.replace(/^http/, "ws");
    const results = await Promise.all(
      humans.map((seat) =>
        playSeat({
          url: `${ws}/v1/tables/${made.table}/seats/${seat}/ws?token=${made.tokens[String(seat)]}`,
          lines,
          name: humans.length > 1 ? `seat ${seat}` : "you",
          out: humans.length > 1 && seat !== humans[0] ? () => undefined : (l) => console.log(l),
        }),
      ),
    );
    const rec = await app.inject({ method: "GET", url: `/v1/tables/${made.table}/record`, headers: { accept: "application/json" } });
    if (rec.statusCode === 200) {
      const record = JSON.parse(rec.body) as { seed: number };
      console.log(`seed ${record.seed} (--seed ${record.seed} deals this game again)`);
      if (values.record) {
        writeFileSync(values.record, JSON.stringify(record, null, 1) + "\n");
        console.log(commandLine(`record written to ${values.record} (npm run replay -- ${values.record})`));
      }
    }
    return results[0]?.returns === null ? 1 : 0;
  } finally {
    lines.close();
    await app.close();
    temp.remove();
  }
}
