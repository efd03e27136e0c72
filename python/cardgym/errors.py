"""Exceptions raised by the cardgym client."""

from __future__ import annotations

from typing import Any, Mapping, Optional


class CardgymError(Exception):
    """Base class of every error this package raises on purpose."""


class ServerError(CardgymError):
    """The server answered with an error reply ``{"error": {"code", "message", ...}}``.

    ``code`` is the protocol's machine-readable code (``illegal_action``, ``unknown_game``...),
    ``status`` the HTTP status, ``message`` the server's own sentence and ``details`` any extra
    fields it sent (``env``, ``action``...). See docs/protocol.md for the list of codes.
    """

    def __init__(self, status: int, code: str, message: str, details: Optional[Mapping[str, Any]] = None):
        super().__init__(f"{code} ({status}): {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = dict(details or {})

    def __reduce__(self):  # keep the fields across pickling (multiprocessing vector envs)
        return (type(self), (self.status, self.code, self.message, self.details))


class IllegalActionError(ServerError):
    """An action the current mask does not allow (``illegal_action``) or outside the action
    space (``action_out_of_range``). The server changed nothing: the env can keep going."""


class ServerUnavailable(CardgymError, ConnectionError):
    """The server could not be reached, or the connection broke during a request."""


class ServerStartError(CardgymError, RuntimeError):
    """The embedded Node server could not be started (no repo checkout, no node, a crash...)."""


def server_error(status: int, body: Any) -> ServerError:
    """Builds the right exception from an error reply (or from a reply that is not one)."""
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict):
        return ServerError(status, "bad_reply", f"HTTP {status} without an error body: {body!r:.200}")
    code = str(err.get("code", "unknown"))
    message = str(err.get("message", ""))
    details = {k: v for k, v in err.items() if k not in ("code", "message")}
    cls = IllegalActionError if code in ("illegal_action", "action_out_of_range") else ServerError
    return cls(status, code, message, details)
