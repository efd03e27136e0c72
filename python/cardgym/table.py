"""Join one seat of a live table (docs/live.md) from Python, so your own bot can play people.

    import cardgym
    reply = cardgym.Table.create(url, "sevens", ["human", "random", "random"], seed=1)
    table = cardgym.Table(url, reply["table"], seat=0, token=reply["tokens"]["0"])
    final = table.play(lambda frame: frame["decisions"][0]["id"])   # any policy: frame -> decision id
    print(final["returns"])

It speaks the table protocol's HTTP fallback (JSON, long polls), so it needs nothing beyond the
standard library and works over TCP (``http://host:port``) and Unix sockets (``unix:/path``).
A frame is the protocol's ``frame`` message as a dict: ``seq``, ``view`` (this seat's view),
``decisions`` (``[{"id", "label", "decision"}]``, non-empty on this seat's turn), ``expectation``
(with the absolute ``deadline`` in ms since the epoch), ``events``, ``seats``, ``status``,
``returns``.
"""

from __future__ import annotations

import json
import time
from typing import Any, Callable, Dict, List, Optional
from urllib.parse import quote, urlsplit

from .errors import ServerError, ServerUnavailable
from .http import Connection, unix_socket_path

Frame = Dict[str, Any]

#: How long one long poll may wait on the server (its limit is 30 s).
LONG_POLL_MS = 25_000


class _Http:
    """JSON requests over one keep-alive connection (TCP or Unix socket)."""

    def __init__(self, url: str, timeout: float):
        path = unix_socket_path(url)
        if path is not None:
            self.conn = Connection("localhost", 0, timeout, unix_path=path)
        else:
            parts = urlsplit(url if "://" in url else f"http://{url}")
            if parts.scheme != "http" or not parts.hostname:
                raise ValueError(f"table server URL must look like http://host:port or unix:/path, got {url!r}")
            self.conn = Connection(parts.hostname, parts.port or 80, timeout)
        self.url = url

    def call(self, method: str, path: str, body: Any = None, token: Optional[str] = None) -> Any:
        headers = b"Accept: application/json\r\n"
        if token is not None:
            headers += f"x-seat-token: {token}\r\n".encode("ascii")
        data = None
        if body is not None:
            headers += b"Content-Type: application/json\r\n"
            data = json.dumps(body).encode("utf-8")
        for attempt in range(2):
            try:
                if self.conn.sock is None or self.conn.stale():
                    self.conn.close()
                    self.conn.connect()
                status, _, raw = self.conn.request(method, path, headers, data)
                break
            except OSError as e:
                self.conn.close()
                if attempt == 1:
                    raise ServerUnavailable(f"the cardgym server at {self.url} is unreachable: {e}") from None
        reply = json.loads(raw.decode("utf-8")) if raw else None
        if status >= 400:
            err = (reply or {}).get("error", {}) if isinstance(reply, dict) else {}
            raise ServerError(status, str(err.get("code", "http_error")), str(err.get("message", f"HTTP {status}")))
        return reply

    def close(self) -> None:
        self.conn.close()


class Table:
    """One seat of a live table, held with its secret token."""

    def __init__(self, url: str, table: str, seat: int, token: str, timeout: float = 60.0):
        self.url = url
        self.table = table
        self.seat = int(seat)
        self._token = token
        self._http = _Http(url, timeout)
        self._base = f"/v1/tables/{quote(table, safe='')}/seats/{self.seat}"

    @staticmethod
    def create(url: str, game: str, seats: List[str], **options: Any) -> Dict[str, Any]:
        """``POST /v1/tables``: returns the reply (``table``, ``tokens`` per human seat, ``seats``...).
        ``options``: ``config``, ``seed``, ``deadlines``, ``facilitator``, ``spectators``."""
        http = _Http(url, 60.0)
        try:
            return http.call("POST", "/v1/tables", {"game": game, "seats": seats, **options})
        finally:
            http.close()

    @classmethod
    def join(cls, url: str, table: str, seat: int, **kwargs: Any) -> Table:
        """Takes a seat, mid-game or not (docs/live.md, "Joining a seat"): an open seat nobody
        holds (``open`` / ``open:<agent>`` at creation), a seat its holder left (their token stops
        working), or an agent's seat where the table's facilitator allows it (``training``,
        ``debug``). Refused with ServerError ``seat_taken`` (a person holds it), ``not_joinable``
        (the table's mode keeps it, or it was resigned) or ``window_closed`` (the table's entry
        window closed with the seat empty, and the agents play it for the game)."""
        http = _Http(url, 60.0)
        try:
            reply = http.call("POST", f"/v1/tables/{quote(table, safe='')}/seats/{int(seat)}/join")
        finally:
            http.close()
        return cls(url, table, seat, reply["token"], **kwargs)

    def frame(self, since: Optional[int] = None, wait_ms: int = 0) -> Frame:
        """The seat's current frame; with ``since`` and ``wait_ms`` a long poll that returns once the
        table is past ``since`` or this seat must decide (or the wait ends)."""
        query = ""
        if since is not None:
            query = f"?since={int(since)}&wait={int(wait_ms)}"
        return self._http.call("GET", f"{self._base}/frame{query}", token=self._token)

    def answer(self, frame: Frame, decision_id: int) -> Dict[str, Any]:
        """Answers ``frame`` with the decision whose id is ``decision_id``. A stale frame (the table
        moved on: a deadline passed, or it was already answered) raises ServerError ``stale_answer``."""
        return self._http.call("POST", f"{self._base}/answer", {"seq": int(frame["seq"]), "decisionId": int(decision_id)}, token=self._token)

    def wait_turn(self, since: Optional[int] = None, timeout: Optional[float] = None) -> Frame:
        """Blocks until this seat must decide or the game is over; returns that frame."""
        end = None if timeout is None else time.monotonic() + timeout
        frame = self.frame()
        while frame["status"] != "finished" and not frame["decisions"]:
            if end is not None and time.monotonic() > end:
                raise TimeoutError(f"seat {self.seat} of table {self.table} was not asked to decide within {timeout} s")
            frame = self.frame(since=frame["seq"], wait_ms=LONG_POLL_MS)
        return frame

    def play(self, policy: Callable[[Frame], int], on_frame: Optional[Callable[[Frame], None]] = None) -> Frame:
        """Plays the seat to the end: ``policy(frame)`` returns one of ``frame["decisions"]``' ids.
        A stale answer (the deadline won the race) is skipped. Returns the final frame."""
        while True:
            frame = self.wait_turn()
            if on_frame is not None:
                on_frame(frame)
            if frame["status"] == "finished":
                return frame
            try:
                self.answer(frame, policy(frame))
            except ServerError as e:
                if e.code != "stale_answer":
                    raise

    def leave(self) -> None:
        """Gives the seat up for now: the table's takeover agent plays it until you return with the
        token, or another person joins the seat (then the token stops working). The server
        journals the leave before it answers, so a restart keeps it."""
        self._http.call("POST", f"{self._base}/leave", token=self._token)

    def resign(self) -> Dict[str, Any]:
        """Gives the seat up for good (docs/live.md): the game's conceding decision where it has
        one (dcg loses), else the takeover agent plays the seat to the end. The token stops
        working: later calls raise ServerError ``seat_resigned``. Returns
        ``{"resigned": True, "seat", "outcome": "conceded" | "takeover"}``."""
        return self._http.call("POST", f"{self._base}/resign", token=self._token)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Table:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
