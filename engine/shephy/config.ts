import { asObject, enumField, intField, ok, type Result } from "../core/index.ts";
import type { ShephyConfig, ShephyMode } from "./state.ts";

export const SHEPHY_MODES: readonly ShephyMode[] = ["basic", "challenge"];

export function parseConfig(raw: unknown): Result<ShephyConfig> {
  const obj = asObject(raw, ["seats", "mode"]);
  if (!obj.ok) return obj;
  const seats = intField(obj.value, "seats", 1, 1, 1);
  if (!seats.ok) return seats;
  const mode = enumField(obj.value, "mode", "basic", SHEPHY_MODES);
  if (!mode.ok) return mode;
  return ok({ seats: seats.value, mode: mode.value });
}
