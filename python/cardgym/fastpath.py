"""The fast path: reset and step a session over its worker's Unix socket, without HTTP.

A server started with a Unix socket (the embedded one, or ``npm start -- --socket PATH``) lets
each session worker serve framed requests on a socket of its own (docs/protocol.md, "The fast
path"). A session asks for it once over HTTP (``POST /v1/sessions/:id/fast-path`` returns the
socket and a key for that session), then each reset or step is one write and one read on that
socket: no HTTP parsing on either side, no hop through the server's event-loop thread. Replies
are the same msgpack bytes the HTTP routes send (or, asked for, the fixed layout below), so everything
above this module is unchanged.

Frames are little-endian. Request: ``u32 n`` (bytes after this field), ``u8 op``, ``u8 flags``,
two zero bytes, the payload. Reply: ``u32 n``, ``u8 kind`` (0 ok, 1 error), ``u8 layout``, ``u16``
HTTP status, the msgpack payload; or, when a reset or step asked for it (``flags`` bit 0) and the
session's batches fit it, ``layout`` 1 and the batch in the fixed layout of env/reply-layout.ts,
which :class:`LaidOut` carries to the reader (cardgym.client reads a one-env reply from it
without msgpack).
"""

from __future__ import annotations

import errno
import socket
import struct
import threading
from typing import Any, Callable, Dict, Optional, Tuple

import msgpack
import numpy as np

OP_ATTACH = 1
OP_RESET = 2
OP_STEP = 3

_REQUEST = struct.Struct("<IBB2x")
_REPLY = struct.Struct("<IBBH")
#: A step frame of one env: the header (with its flags) and its int32 action, packed at once.
_STEP_ONE = struct.Struct("<IBB2xi")
#: Request flag: answer in the fixed layout of env/reply-layout.ts when the session's batches fit it.
FLAG_LAYOUT = 1


class LaidOut(bytes):
    """A reply payload in the fixed layout of env/reply-layout.ts (a copy of its bytes)."""

#: Replies larger than this are refused (a broken or hostile peer must not make us allocate GBs).
MAX_REPLY = 1 << 30


class FastPathBroken(OSError):
    """The fast-path connection failed or the server closed it (the caller asks HTTP why).
    ``code``: the server's error code when it refused the attach (``session_busy``...), else None."""

    code: Optional[str] = None


def _set_timeout(sock: socket.socket, timeout: Optional[float]) -> bool:
    """Puts ``timeout`` on ``sock`` as the kernel's SO_RCVTIMEO/SO_SNDTIMEO of a blocking socket;
    False where the platform refuses (the caller then uses Python's ``settimeout``).

    Python's own socket timeout polls before every send and every receive: four system calls per
    step instead of two (docs/benchmarks.md, "2026-11-27"). The kernel's timeouts cost nothing
    per call; a call that runs out of time fails with EAGAIN, which ``_timed_out`` reports as
    ``socket.timeout``, as ``settimeout`` would."""
    sock.settimeout(None)
    if timeout is None:
        return True
    if timeout <= 0:
        return False
    seconds = int(timeout)
    micros = int(round((timeout - seconds) * 1e6))
    if seconds == 0 and micros == 0:
        micros = 1  # a zero timeval means "never time out"
    try:
        tv = struct.pack("@ll", seconds, micros)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)
    except (OSError, struct.error, AttributeError):
        return False
    return True


def _timed_out(e: BaseException) -> BaseException:
    """A kernel socket timeout (EAGAIN on a blocking socket) as the ``socket.timeout`` that
    Python's own timeout raises; anything else as it is."""
    if isinstance(e, OSError) and not isinstance(e, FastPathBroken) and e.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
        return socket.timeout("timed out")
    return e


class FastConnection:
    """One session's connection to its worker's fast-path socket (attached at construction).

    ``object_hook``: called on every map of a reply as msgpack decodes it (the session turns its
    tensors into numpy arrays there)."""

    def __init__(self, path: str, key: str, timeout: Optional[float], object_hook: Optional[Callable[[Dict[Any, Any]], Any]] = None):
        self.path = path
        self.sock: Optional[socket.socket] = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if not _set_timeout(self.sock, timeout):
            self.sock.settimeout(timeout)
        self._hook = object_hook
        self._lock = threading.Lock()
        # Reused receive buffer: msgpack copies what it decodes, so no reply keeps a view of it.
        self._buf = bytearray(65536)
        #: The last reply's layout byte (1: the fixed layout, 0: msgpack).
        self._layout = 0
        #: Size of the last reply's msgpack payload (as Client.last_reply_bytes counts HTTP bodies).
        self.last_reply_bytes = 0
        try:
            self.sock.connect(path)
            kind, status, body = self._call(OP_ATTACH, key.encode("utf-8"))
        except OSError as e:
            self.close()
            raise FastPathBroken(str(_timed_out(e))) from None
        if kind != 0:
            self.close()
            refusal = msgpack.unpackb(body)
            broken = FastPathBroken(f"attach refused ({status}): {refusal}")
            error = refusal.get("error") if isinstance(refusal, dict) else None
            broken.code = error.get("code") if isinstance(error, dict) else None
            raise broken

    def reset(self, body: Any, decode: bool = True, flags: int = 0) -> Tuple[int, int, Any]:
        """``flags=FLAG_LAYOUT``: a reply in the fixed layout comes back as :class:`LaidOut`."""
        return self.request(OP_RESET, msgpack.packb(body) if body else b"", decode, flags)

    def step(self, actions: np.ndarray) -> Tuple[int, int, Any]:
        return self.request(OP_STEP, np.ascontiguousarray(actions, dtype="<i4").tobytes())

    def step_one(self, action: int, decode: bool = True, flags: int = 0) -> Tuple[int, int, Any]:
        """A step of a one-env session (``action`` must fit an int32: struct.error otherwise).
        ``decode=False``: the reply's maps as msgpack gives them (no ``object_hook``).
        ``flags=FLAG_LAYOUT``: a reply in the fixed layout comes back as :class:`LaidOut`."""
        return self._request(_STEP_ONE.pack(8, OP_STEP, flags, action), decode)

    def request(self, op: int, payload: bytes, decode: bool = True, flags: int = 0) -> Tuple[int, int, Any]:
        """Sends one frame; returns (kind, status, decoded msgpack reply, or LaidOut bytes)."""
        return self._request(_REQUEST.pack(4 + len(payload), op, flags) + payload, decode)

    def _request(self, frame: bytes, decode: bool = True) -> Tuple[int, int, Any]:
        with self._lock:
            try:
                self._send_frame(frame)
                kind, status, body = self._receive()
            except BaseException as e:
                self._drop(e)
                raise
            # Decoded (or copied) under the lock: the receive buffer is reused by the next request.
            if self._layout and kind == 0:
                return kind, status, LaidOut(body)
            return kind, status, msgpack.unpackb(body, object_hook=self._hook if decode else None)

    def send(self, op: int, payload: bytes) -> None:
        """The first half of :meth:`request`: sends the frame and returns at once (``receive``
        reads its reply). One frame in flight per connection; the caller keeps them paired."""
        try:
            self._send(op, payload)
        except BaseException as e:
            self._drop(e)
            raise

    def receive(self) -> Tuple[int, int, Any]:
        """The reply to the frame :meth:`send` sent (blocks until it is here)."""
        try:
            kind, status, body = self._receive()
        except BaseException as e:
            self._drop(e)
            raise
        return kind, status, msgpack.unpackb(body, object_hook=self._hook)

    def _drop(self, e: BaseException) -> None:
        """After ``e`` cut a request short: a frame half-sent or half-read leaves the stream out of
        step, so the connection is closed; a kernel timeout is raised as ``socket.timeout``
        (otherwise the caller re-raises ``e`` as it is)."""
        self.close()
        timed_out = _timed_out(e)
        if timed_out is not e:
            raise timed_out from None

    def fileno(self) -> int:
        """The socket's descriptor (for select: readable once a reply is arriving)."""
        if self.sock is None:
            raise FastPathBroken("the fast-path connection is closed")
        return self.sock.fileno()

    def _call(self, op: int, payload: bytes) -> Tuple[int, int, memoryview]:
        self._send(op, payload)
        return self._receive()

    def _send(self, op: int, payload: bytes) -> None:
        self._send_frame(_REQUEST.pack(4 + len(payload), op, 0) + payload)

    def _send_frame(self, frame: bytes) -> None:
        sock = self.sock
        if sock is None:
            raise FastPathBroken("the fast-path connection is closed")
        sock.sendall(frame)

    def _receive(self) -> Tuple[int, int, memoryview]:
        sock = self.sock
        if sock is None:
            raise FastPathBroken("the fast-path connection is closed")
        buf = self._buf
        view = memoryview(buf)
        have = sock.recv_into(view)
        while have < 8:
            got = sock.recv_into(view[have:])
            if got == 0:
                raise FastPathBroken("the server closed the fast-path connection")
            have += got
        n, kind, self._layout, status = _REPLY.unpack_from(buf)
        if n < 4 or n > MAX_REPLY:
            raise FastPathBroken(f"a fast-path reply declares {n} bytes")
        end = 4 + n
        if end > len(buf):
            grown = bytearray(max(end, 2 * len(buf)))
            grown[:have] = view[:have]
            self._buf = buf = grown
            view = memoryview(buf)
        while have < end:
            got = sock.recv_into(view[have:end])
            if got == 0:
                raise FastPathBroken("the server closed the fast-path connection mid-reply")
            have += got
        if have != end:
            raise FastPathBroken("the server sent more than one reply")
        self.last_reply_bytes = n - 4
        return kind, status, view[8:end]

    def close(self) -> None:
        sock, self.sock = self.sock, None
        if sock is not None:
            sock.close()

    @property
    def closed(self) -> bool:
        return self.sock is None
