/**
 * npm run book-table -- [--games N] [--seed N] [--agent spec] [--books a,b,...] [--write docs/books.md] [--config JSON]
 *
 * Plays every pair of preset dcg books with the same agent on both seats (default `computer`),
 * N games per pair (half with each book as the Host), and prints a Markdown table of win rates
 * (a draw counts half). With --write, the table replaces the block between the
 * `<!-- book-table -->` markers of that file. Exits 1 when some book wins more than 70% against
 * every other book (the balance bar of issue 8).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { deriveSeed } from "../engine/core/index.ts";
import { dcg } from "../engine/dcg/index.ts";
import { runMatch } from "../agents/match.ts";
import { createAgent, parseAgentSpec } from "../agents/spec.ts";
import { intArg, jsonArg, main, parseCli, UsageError, printUsage } from "./cli.ts";

const USAGE = "npm run book-table -- [--games N] [--seed N] [--agent spec] [--books a,b,...] [--write file.md] [--config JSON] [-q]";
const BAR = 0.7;
const START = "<!-- book-table -->";
const END = "<!-- /book-table -->";

main(async () => {
  const { values, positionals } = parseCli(USAGE, {
    games: { type: "string" },
    seed: { type: "string" },
    agent: { type: "string" },
    books: { type: "string" },
    write: { type: "string" },
    config: { type: "string" },
    quiet: { type: "boolean", short: "q" },
  });
  if (values.help) return printUsage(USAGE);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"\nusage: ${USAGE}`);
  const games = intArg(values.games, "games", 200, 2, 100_000);
  const seed = intArg(values.seed, "seed", 1);
  const agent = values.agent ?? "computer";
  if (!parseAgentSpec(agent).ok) throw new UsageError(`--agent: not an agent spec: ${agent}`);
  const extra = jsonArg(values.config, "config") as Record<string, unknown>;
  const books = values.books ? values.books.split(",") : dcg.presets.map((b) => b.id);
  for (const b of books) if (!dcg.presets.some((p) => p.id === b)) throw new UsageError(`--books: unknown preset ${b}`);

  // score[a][b] = points of book a against book b (win 1, draw 0.5), over `games` games.
  const score = books.map(() => books.map(() => 0));
  const started = Date.now();
  for (let i = 0; i < books.length; i++) {
    for (let j = i + 1; j < books.length; j++) {
      for (let g = 0; g < games; g++) {
        // Seats swap every game; both books meet the same seeds from both seats.
        const swap = g % 2 === 1;
        const seat0 = swap ? j : i;
        const seat1 = swap ? i : j;
        const gameSeed = deriveSeed(seed, `${books[i]}-${books[j]}:${g >> 1}`);
        const agents = [0, 1].map((seat) => {
          const made = createAgent(agent, { seed: deriveSeed(gameSeed, "agents"), seat, game: "dcg" });
          if (!made.ok) throw new UsageError(made.error.message);
          return made.value;
        });
        const result = await runMatch({ game: dcg, config: { ...extra, books: [books[seat0], books[seat1]] }, seed: gameSeed, agents });
        const [r0, r1] = result.returns as [number, number];
        score[seat0]![seat1]! += r0 > r1 ? 1 : r0 === r1 ? 0.5 : 0;
        score[seat1]![seat0]! += r1 > r0 ? 1 : r0 === r1 ? 0.5 : 0;
      }
      if (!values.quiet)
        console.error(`${books[i]} vs ${books[j]}: ${((100 * score[i]![j]!) / games).toFixed(1)}% (${((Date.now() - started) / 1000).toFixed(0)}s)`);
    }
  }
  const rate = (i: number, j: number) => score[i]![j]! / games;
  const lines = [
    `Win rate of the row book against the column book (${agent} agent on both seats, ${games} games per pair with seats swapped, seed ${seed}; a draw counts half).`,
    "",
    `| book | ${books.join(" | ")} | mean |`,
    `|---|${books.map(() => "---:").join("|")}|---:|`,
  ];
  const dominant: string[] = [];
  books.forEach((b, i) => {
    const others = books.map((_, j) => j).filter((j) => j !== i);
    const mean = others.reduce((sum, j) => sum + rate(i, j), 0) / others.length;
    lines.push(`| ${b} | ${books.map((_, j) => (i === j ? "-" : `${(100 * rate(i, j)).toFixed(1)}%`)).join(" | ")} | ${(100 * mean).toFixed(1)}% |`);
    if (others.every((j) => rate(i, j) > BAR)) dominant.push(b);
  });
  const worst = Math.max(...books.flatMap((_, i) => books.map((_, j) => (i === j ? 0 : rate(i, j)))));
  lines.push(
    "",
    `Highest pairwise win rate: ${(100 * worst).toFixed(1)}%. ${dominant.length === 0 ? `No book wins more than ${BAR * 100}% against every other.` : `Dominant (over ${BAR * 100}% against every other): ${dominant.join(", ")}.`}`,
  );
  const table = lines.join("\n");
  console.log(table);
  if (values.write) {
    let doc: string;
    try {
      doc = readFileSync(values.write, "utf8");
    } catch (e) {
      throw new UsageError(`--write: cannot read ${values.write} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    const a = doc.indexOf(START);
    const b = doc.indexOf(END);
    if (a < 0 || b < a) throw new UsageError(`${values.write} has no ${START} ... ${END} block`);
    writeFileSync(values.write, `${doc.slice(0, a + START.length)}\n${table}\n${doc.slice(b)}`);
  }
  return dominant.length === 0 ? 0 : 1;
});
