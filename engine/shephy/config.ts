import { ok, parseFields, type Result } from "../core/index.ts";
import { SHEPHY_CONFIG_FIELDS, type ShephyConfig, type ShephyMode } from "./state.ts";

export const SHEPHY_MODES: readonly ShephyMode[] = ["basic", "challenge"];

export function parseConfig(raw: unknown): Result<ShephyConfig> {
  const parsed = parseFields(raw, SHEPHY_CONFIG_FIELDS);
  return parsed.ok ? ok(parsed.value.value) : parsed;
}
