export { buildApp, type CardgymState } from "./app.ts";
export { ApiError } from "./api-error.ts";
export { DEFAULT_LIMITS, resolveOptions, type ServerOptions } from "./options.ts";
