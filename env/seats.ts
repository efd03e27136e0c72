import { parseAgentSpec } from "../agents/spec.ts";
import { EnvRequestError } from "./errors.ts";

/**
 * Who sits at each seat of a LearningFacilitator session:
 * - `learner`: decided by the client (the policy being trained);
 * - `external`: decided by the client too, but not the one being trained (self-play opponent,
 *   a human relay, another trainer); only meaningful in multi-agent mode;
 * - anything else is an agent spec string (`random`, later `mcts:iters=200`...), played inside
 *   the server.
 */
export type SeatRole = { readonly kind: "learner" } | { readonly kind: "external" } | { readonly kind: "agent"; readonly spec: string };

/**
 * `single`: exactly one client-controlled seat, which is a learner: Gymnasium vector semantics.
 * `multi`: two or more client-controlled seats: PettingZoo AEC semantics, each reply names the
 * seat that must act in each env.
 */
export type SessionMode = "single" | "multi";

export function parseSeats(seats: readonly string[]): SeatRole[] {
  return seats.map((text, i) => {
    if (text === "learner") return { kind: "learner" } as const;
    if (text === "external") return { kind: "external" } as const;
    const parsed = parseAgentSpec(text);
    if (!parsed.ok) throw new EnvRequestError("invalid_seats", `seats[${i}]: ${parsed.error.message}`);
    return { kind: "agent", spec: text } as const;
  });
}

export function isControlled(role: SeatRole): boolean {
  return role.kind !== "agent";
}

export function sessionMode(roles: readonly SeatRole[]): SessionMode {
  const controlled = roles.filter(isControlled);
  if (controlled.length === 0) {
    throw new EnvRequestError("invalid_seats", 'at least one seat must be "learner" or "external"; all seats are agents');
  }
  if (controlled.length === 1) {
    if (controlled[0]?.kind !== "learner") {
      throw new EnvRequestError("invalid_seats", 'with a single client-controlled seat, that seat must be "learner"');
    }
    return "single";
  }
  return "multi";
}
