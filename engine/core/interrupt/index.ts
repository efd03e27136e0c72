/** BlackPoker's core flow as a reusable, game-agnostic module (see types.ts for the vocabulary). */
export * from "./types.ts";
export * from "./flow.ts";
