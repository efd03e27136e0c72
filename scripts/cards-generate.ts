/**
 * npm run cards:generate -- --seed N --cards K [--out FILE] [--balance GAMES] [--agent SPEC]
 *
 * Writes the generated card set of (seed, cards) (engine/dcg/generate.ts; docs/cards.md,
 * "Generated pools") as JSON to FILE (default: stdout). --balance plays that many round-robin
 * games between its books (agents/dcg-pool-balance.ts) and prints each book's score; it exits 1 if a
 * book scores outside the documented band.
 */
import { writeFileSync } from "node:fs";
import { BALANCE_BAND, balanceCheck } from "../agents/dcg-pool-balance.ts";
import { generateCardSet, MAX_GENERATED_CARDS, MIN_GENERATED_CARDS } from "../engine/dcg/generate.ts";
import { intArg, main, outFileArg, parseCli, UsageError, printUsage } from "./cli.ts";

const USAGE = `npm run cards:generate -- --seed N --cards K [--out FILE] [--balance GAMES] [--agent random|computer]
  --seed N         generator seed, 0..4294967295 (required)
  --cards K        cards in the pool, ${MIN_GENERATED_CARDS}..${MAX_GENERATED_CARDS} (required)
  --out FILE       write the card set here (default: stdout)
  --balance GAMES  also play GAMES round-robin games between its books and report (0..100000)
  --agent SPEC     agent for both seats in the balance games (default random)`;

main(async () => {
  const { values, positionals } = parseCli(USAGE, {
    seed: { type: "string" },
    cards: { type: "string" },
    out: { type: "string" },
    balance: { type: "string" },
    agent: { type: "string" },
  });
  if (values.help) return printUsage(USAGE);
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}\nusage: ${USAGE}`);
  if (values.seed === undefined) throw new UsageError(`--seed is required\nusage: ${USAGE}`);
  if (values.cards === undefined) throw new UsageError(`--cards is required\nusage: ${USAGE}`);
  const seed = intArg(values.seed, "seed", 0, 0, 4_294_967_295);
  const cards = intArg(values.cards, "cards", 40, MIN_GENERATED_CARDS, MAX_GENERATED_CARDS);
  const games = intArg(values.balance, "balance", 0, 0, 100_000);
  if (values.out !== undefined) outFileArg("--out", values.out);
  const set = generateCardSet({ seed, cards });
  const json = `${JSON.stringify(set, null, 1)}\n`;
  if (values.out === undefined) process.stdout.write(json);
  else writeFileSync(values.out, json);
  console.error(
    `generated seed ${seed}: ${set.cards.length} cards, ${set.books.length} books (${set.books.map((b) => b.id).join(", ")})${values.out === undefined ? "" : ` -> ${values.out}`}`,
  );
  if (games === 0) return 0;
  const step = Math.max(1, Math.floor(games / 10));
  const report = await balanceCheck(
    { seed, cards },
    {
      games,
      agent: values.agent ?? "random",
      onGame: (done, total) => {
        if (done % step === 0 || done === total) console.error(`balance: ${done}/${total} games`);
      },
    },
  );
  for (const b of report.books) console.error(`  ${b.book.padEnd(24)} score ${b.score.toFixed(3)}  (${b.wins} wins, ${b.draws} draws, ${b.games} games)`);
  const outside = report.books.filter((b) => b.score < BALANCE_BAND[0] || b.score > BALANCE_BAND[1]).map((b) => `${b.book} ${b.score.toFixed(3)}`);
  console.error(
    `every book's score in ${BALANCE_BAND[0]}..${BALANCE_BAND[1]}: ${report.balanced ? "balanced" : `NOT balanced (outside: ${outside.join(", ")})`}; the first seat scores ${report.firstSeat.toFixed(3)}`,
  );
  return report.balanced ? 0 : 1;
});
