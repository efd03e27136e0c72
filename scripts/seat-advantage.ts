/**
 * Seat advantage of each game: a uniformly random player at each seat against random opponents
 * (the learner's starting point), measured through LearningFacilitator sessions exactly as a
 * trainer sees them. `npm run seat-advantage -- [--episodes N] [--seed N] [--game id] [--config JSON]`.
 * Prints one row per game and seat: the learner's win rate (return > 0), loss rate and mean return.
 */
import { parseArgs } from "node:util";
import { adapters } from "../env/games/index.ts";
import { LearningFacilitator } from "../env/learning-facilitator.ts";

const { values } = parseArgs({
  options: { episodes: { type: "string", default: "400" }, seed: { type: "string", default: "1" }, game: { type: "string" }, config: { type: "string" } },
});
const episodes = Number(values.episodes);
const seed = Number(values.seed);
const config = values.config ? (JSON.parse(values.config) as Record<string, unknown>) : undefined;
const games = values.game ? [values.game] : [...adapters.keys()];

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
      for (let i = 0; i < f.numEnvs; i++) {
        const legal: number[] = [];
        for (let a = 0; a < A; a++) if (b.mask[i * A + a]) legal.push(a);
        actions.push(legal[rand(legal.length)] ?? 0);
      }
      b = await f.step(actions);
      for (let i = 0; i < f.numEnvs && done < episodes; i++) {
        if (b.terminated[i] || b.truncated[i]) {
          const r = b.final!.returns[i * numSeats + learner]!;
          done++;
          total += r;
          if (r > 0) wins++;
          else if (r < 0) losses++;
        }
      }
    }
    const pct = (k: number) => `${((100 * k) / episodes).toFixed(1)}%`;
    console.log(`| ${id} | ${config ? JSON.stringify(config) : "default"} | ${learner} | ${pct(wins)} | ${pct(losses)} | ${(total / episodes).toFixed(3)} |`);
  }
}
