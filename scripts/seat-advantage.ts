/**
 * Seat advantage of each game: a uniformly random player at each seat against random opponents
 * (the learner's starting point), measured through LearningFacilitator sessions exactly as a
 * trainer sees them. `npm run seat-advantage -- [--episodes N] [--seed N] [--game id] [--config JSON]`.
 * Prints one row per game and seat: the learner's win rate (return > 0), loss rate and mean return.
 */
import { adapters } from "../env/games/index.ts";
import { LearningFacilitator } from "../env/learning-facilitator.ts";
import { intArg, jsonArg, main, parseCli, printUsage, UsageError } from "./cli.ts";

const USAGE = "npm run seat-advantage -- [--episodes N] [--seed N] [--game id] [--config JSON]";
main(async () => {
  const { values, positionals } = parseCli(USAGE, {
    episodes: { type: "string" },
    seed: { type: "string" },
    game: { type: "string" },
    config: { type: "string" },
  });
  if (values.help) return printUsage(USAGE, `games: ${[...adapters.keys()].join(", ")}`);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"\nusage: ${USAGE}`);
  const episodes = intArg(values.episodes, "episodes", 400, 1, 10_000_000);
  const seed = intArg(values.seed, "seed", 1);
  const config = values.config ? (jsonArg(values.config, "config") as Record<string, unknown>) : undefined;
  const games = values.game ? [values.game] : [...adapters.keys()];
  if (values.game !== undefined && !adapters.has(values.game))
    throw new UsageError(`unknown game "${values.game}"; known games: ${[...adapters.keys()].join(", ")}`);

  let x = seed | 0 || 1;
  const rand = (n: number): number => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };

  console.log("| game | config | learner seat | win | loss | mean return |");
  console.log("|---|---|---:|---:|---:|---:|");
  for (const id of games) {
    const adapter = adapters.get(id);
    if (!adapter) throw new Error(`no game ${id}`);
    const numSeats = adapter.game.info.defaultSeats;
    for (let learner = 0; learner < numSeats; learner++) {
      const seats = Array.from({ length: numSeats }, (_, k) => (k === learner ? "learner" : "random"));
      const f = LearningFacilitator.create({ adapter, numEnvs: 16, seed, seats, autoreset: "same-step", ...(config ? { config } : {}) });
      const A = adapter.actions.size;
      let b = await f.reset();
      let done = 0;
      let wins = 0;
      let losses = 0;
      let total = 0;
      while (done < episodes) {
        const actions: number[] = [];
        for (let i = 0; i < f.settings.numEnvs; i++) {
          const legal: number[] = [];
          for (let a = 0; a < A; a++) if (b.mask[i * A + a]) legal.push(a);
          actions.push(legal[rand(legal.length)] ?? 0);
        }
        b = await f.step(actions);
        // The episodes that ended in this step: one row each, in env order (not one per env).
        const final = b.final;
        for (let k = 0; final !== null && k < final.envs.length && done < episodes; k++) {
          const r = final.returns[k * numSeats + learner] ?? NaN;
          done++;
          total += r;
          if (r > 0) wins++;
          else if (r < 0) losses++;
        }
      }
      const pct = (k: number) => `${((100 * k) / episodes).toFixed(1)}%`;
      console.log(`| ${id} | ${config ? JSON.stringify(config) : "default"} | ${learner} | ${pct(wins)} | ${pct(losses)} | ${(total / episodes).toFixed(3)} |`);
    }
  }
  return 0;
});
