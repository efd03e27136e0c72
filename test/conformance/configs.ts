/**
 * Configs each game runs the conformance suite under, beyond its defaults. A game missing here
 * runs with `{}` only. Variants get a smaller share of the seeds than the default config.
 */
export const variantConfigs: Record<string, readonly Record<string, unknown>[]> = {
  dcg: [{ books: ["venom", "tempo"] }, { books: ["tempo", "vanguard"] }, { books: ["bastion", "venom"] }, { books: ["vanguard", "venom"] }, { books: ["tempo", "bastion"] }],
  sevens: [{ seats: 3 }, { seats: 6, passLimit: 3, voluntaryPass: true }, { seats: 4, startPlayer: "diamond7", passLimit: 3 }],
  shephy: [{ mode: "challenge" }],
  blackpoker: [{ chanceAfterRequest: "requester" }, { drawRule: "sixth", bothLivesZero: "draw" }],
};
