/**
 * tsx scripts/bench-engine-vs.ts --old <checkout> [--old <checkout>...] [--game dcg] [--seconds S] [--rounds N] [--in-place | --in-place-all]
 *
 * Random-playout decisions per CPU second of one game's engine in this checkout against other
 * checkouts' (e.g. `git worktree add`s of older commits), in one process. Every side runs once
 * per round, in an order that rotates from round to round, so that machine load hits all alike
 * (with two old checkouts, say the baseline and main, one run gives both ratios). Rates are per
 * second of this process's own CPU time (user + system), so time the core spent on other
 * processes of a busy machine is not counted. Same loop as `npm run bench`: setup + legal() + a
 * uniform pick + applyTrusted per decision, the same seeds on every side. Prints each side's best
 * and median round and, for each old checkout, the new/old ratio of medians. A benchmark, not a test.
 * `--in-place`: this checkout plays each playout on an owned copy of the set-up state with
 * applyInPlace instead of applyTrusted (a search's path, not applyTrusted's; `--old .` then times
 * the two paths of this checkout against each other). `--in-place-all`: every side that has
 * applyInPlace does so (the path the search agents' playouts take, agents/evaluators/evaluator.ts);
 * a side without it (bb2be99) plays with applyTrusted, its only path.
 */
import { resolve } from "node:path";
import { loadCheckoutEngine, type CheckoutEngine } from "./checkout-engine.ts";
import { intArg, main, parseCli, UsageError, printUsage } from "./cli.ts";
import { cpuMs, reportSides, rotatingRounds } from "./side-by-side.ts";

const USAGE = "tsx scripts/bench-engine-vs.ts --old <checkout> [--old <checkout>...] [--game dcg] [--seconds S] [--rounds N] [--in-place | --in-place-all]";

/**
 * Decisions per CPU second over about `ms` of this process's CPU time (`inPlace`: with applyInPlace
 * on owned copies; `sample`: picking through sampleLegal, only with inPlace).
 */
function measure(side: CheckoutEngine, ms: number, firstSeed: number, inPlace: boolean, sample: boolean): number {
  const { game, Rng } = side;
  const config = game.parseConfig({}).value;
  const rng = Rng.seeded(firstSeed);
  const applyInPlace = game.applyInPlace?.bind(game);
  const ownedCopy = game.ownedCopy?.bind(game);
  const sampleLegal = sample ? game.sampleLegal?.bind(game) : undefined;
  const pick = (n: number): number => rng.int(n);
  let decisions = 0;
  let seed = firstSeed;
  const start = cpuMs();
  let now = start;
  while (now - start < ms) {
    if (inPlace && applyInPlace && ownedCopy && sampleLegal) {
      let s = ownedCopy(game.setup(config, seed++));
      while (game.actor(s) !== "terminal") {
        s = applyInPlace(s, sampleLegal(s, pick));
        decisions++;
      }
    } else if (inPlace && applyInPlace && ownedCopy) {
      let s = ownedCopy(game.setup(config, seed++));
      while (game.actor(s) !== "terminal") {
        const legal = game.legal(s);
        s = applyInPlace(s, legal[rng.int(legal.length)]);
        decisions++;
      }
    } else {
      let s = game.setup(config, seed++);
      while (game.actor(s) !== "terminal") {
        const legal = game.legal(s);
        s = game.applyTrusted(s, legal[rng.int(legal.length)]);
        decisions++;
      }
    }
    now = cpuMs();
  }
  return decisions / ((now - start) / 1000);
}

main(async () => {
  const { values } = parseCli(USAGE, {
    old: { type: "string", multiple: true },
    game: { type: "string" },
    seconds: { type: "string" },
    rounds: { type: "string" },
    "in-place": { type: "boolean" },
    "in-place-all": { type: "boolean" },
  });
  if (values.help) return printUsage(USAGE);
  const olds = values.old ?? [];
  if (olds.length === 0) throw new UsageError(`--old is required\nusage: ${USAGE}`);
  const id = values.game ?? "dcg";
  const seconds = intArg(values.seconds, "seconds", 10, 1, 3600);
  const rounds = intArg(values.rounds, "rounds", 10, 2, 1000);
  const sides = [...(await Promise.all(olds.map((o) => loadCheckoutEngine(resolve(o), id)))), await loadCheckoutEngine(resolve("."), id)];
  const current = sides[sides.length - 1];
  const here = values["in-place"] === true;
  const all = values["in-place-all"] === true;
  if (here && all) throw new UsageError(`--in-place and --in-place-all exclude each other\nusage: ${USAGE}`);
  const inPlace = here || all;
  if (inPlace && !(current?.game.applyInPlace && current.game.ownedCopy)) throw new UsageError(`--in-place: ${id} has no applyInPlace and ownedCopy`);
  const hasInPlace = (side: CheckoutEngine): boolean => side.game.applyInPlace !== undefined && side.game.ownedCopy !== undefined;
  const inPlaceOf = (side: CheckoutEngine): boolean => (all && hasInPlace(side)) || (here && side === current);
  const sampleOf = (side: CheckoutEngine): boolean => all && hasInPlace(side) && side.game.sampleLegal !== undefined;
  for (const s of sides) measure(s, 500, 999_999, inPlaceOf(s), sampleOf(s));
  const slice = (seconds * 1000) / rounds / sides.length;
  const rates = await rotatingRounds(sides, rounds, (side, r) => measure(side, slice, 1 + r * 1_000_000, inPlaceOf(side), sampleOf(side)));
  const nameOf = (i: number): string => (i === sides.length - 1 ? "new" : olds.length === 1 ? "old" : `old${i + 1}`);
  const label = (s: CheckoutEngine, i: number): string =>
    `${nameOf(i)} ${inPlaceOf(s) ? "applyInPlace" : "applyTrusted"}${sampleOf(s) ? " + sampleLegal" : ""}`;
  const path = all
    ? ` (the search playout path where a checkout has it: ${sides.map(label).join(", ")})`
    : here
      ? " (this checkout with applyInPlace on owned copies)"
      : "";
  console.log(`${id} random playouts${path} ${new Date().toISOString()}, ${rounds} rotating rounds, ${seconds} CPU seconds in all`);
  reportSides(olds, rates, "decisions per CPU second", "  ");
  return 0;
});
