/**
 * Errors raised by the RL layer. Two families, kept apart because the server treats them
 * differently:
 * - EnvRequestError: the caller sent something wrong (illegal action, wrong count, step before
 *   reset). Raised before anything changes, so the session is untouched and stays usable.
 * - EnvFault: the engine, an agent or a codec threw or broke its contract while applying a valid
 *   request. The session may be half-way through a step, so the server quarantines it.
 */
export type EnvRequestCode =
  "invalid_config" | "invalid_seats" | "wrong_action_count" | "action_out_of_range" | "illegal_action" | "reset_required" | "session_busy";

export class EnvRequestError extends Error {
  readonly code: EnvRequestCode;
  /** HTTP status the server answers with (400 for bad input, 409 for a wrong session phase). */
  readonly status: number;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: EnvRequestCode, message: string, status = 400, details?: Record<string, unknown>) {
    super(message);
    this.name = "EnvRequestError";
    this.code = code;
    this.status = status;
    this.details = details;
  }
}

export type EnvFaultCode = "game_fault" | "agent_fault" | "codec_fault";

export class EnvFault extends Error {
  readonly code: EnvFaultCode;
  /** The environment in which it happened, when known. */
  readonly env: number | undefined;

  constructor(code: EnvFaultCode, message: string, env?: number, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "EnvFault";
    this.code = code;
    this.env = env;
  }
}

export function describeThrown(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  try {
    return String(e);
  } catch {
    return "a non-printable value";
  }
}

/** The longest error message a reply carries: a refusal may quote what it refuses, which a client can make as long as its body. */
export const MAX_ERROR_MESSAGE = 2000;

/** `message`, cut to MAX_ERROR_MESSAGE characters with a note of how much was left out. */
export function clipMessage(message: string): string {
  return message.length <= MAX_ERROR_MESSAGE ? message : `${message.slice(0, MAX_ERROR_MESSAGE)}... (${message.length - MAX_ERROR_MESSAGE} more characters)`;
}
