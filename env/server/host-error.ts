import { EnvFault, EnvRequestError, clipMessage, describeThrown } from "../errors.ts";
import type { HostError } from "./host-protocol.ts";

/**
 * A thrown session error as the host reports it: a request error (bad input, wrong phase) with
 * its status and code, a fault (the session may be half-way through an operation) flagged as one,
 * anything else an internal error. Shared by the session workers and the in-process runtime.
 */
export function hostError(e: unknown): HostError {
  if (e instanceof EnvRequestError) {
    return { status: e.status, code: e.code, message: clipMessage(e.message), fault: false, ...(e.details ? { details: { ...e.details } } : {}) };
  }
  if (e instanceof EnvFault)
    return { status: 500, code: e.code, message: clipMessage(e.message), fault: true, ...(e.env === undefined ? {} : { details: { env: e.env } }) };
  return { status: 500, code: "internal_error", message: clipMessage(describeThrown(e)), fault: true };
}
