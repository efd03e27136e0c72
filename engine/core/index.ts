export * from "./errors.ts";
export * from "./game.ts";
export * from "./rng.ts";
export * from "./hash.ts";
export * from "./apply.ts";
export * from "./record.ts";
export * from "./registry.ts";
export * from "./config.ts";
