"""A minimal HTTP/1.1 keep-alive connection for the client's request/reply loop.

Why not http.client: it sends the headers and the body in two writes and parses reply headers with
the email package; on loopback that costs more than a whole server step (measured: ~300 µs per
request against ~110 µs here). This speaks just what the cardgym server needs: one request in
flight, bodies with Content-Length, replies with Content-Length or chunked or close-delimited.
"""

from __future__ import annotations

import select
import socket
import time
from typing import Dict, List, Optional, Tuple


class ProtocolError(OSError):
    """The peer sent something that is not an HTTP/1.1 reply, or closed mid-reply."""


def unix_socket_path(url: str) -> Optional[str]:
    """The socket path of a ``unix:/path`` (or ``unix:///path``) URL, else None. Relative paths
    are refused: the server prints absolute ones, and a relative path would depend on the cwd."""
    if not url.startswith("unix:"):
        return None
    path = url[len("unix:") :]
    if path.startswith("//"):
        path = path[2:]
    if not path.startswith("/"):
        raise ValueError(f"a Unix socket URL must name an absolute path, like unix:/tmp/cardgym.sock; got {url!r}")
    if not hasattr(socket, "AF_UNIX"):
        raise ValueError(f"{url!r}: this platform has no Unix domain sockets; use http://host:port")
    return path


class Connection:
    """``unix_path``: connect to that Unix domain socket instead of host:port (the Host header
    still names ``host``)."""

    def __init__(self, host: str, port: int, timeout: Optional[float], unix_path: Optional[str] = None):
        self.host = host
        self.port = port
        self.timeout = timeout
        self.unix_path = unix_path
        self.sock: Optional[socket.socket] = None
        self.last_used = 0.0
        self._buf = bytearray()
        self._host_header = (f"Host: {host}\r\n" if unix_path else f"Host: {host}:{port}\r\n").encode("ascii")

    def connect(self) -> None:
        if self.unix_path is not None:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(self.timeout)
            try:
                sock.connect(self.unix_path)
            except BaseException:
                sock.close()
                raise
        else:
            sock = socket.create_connection((self.host, self.port), timeout=self.timeout)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock = sock
        self._buf.clear()

    def close(self) -> None:
        if self.sock is not None:
            try:
                self.sock.close()
            finally:
                self.sock = None
        self._buf.clear()

    #: A connection used this recently is not probed before the next request: servers close idle
    #: keep-alive connections after seconds (Node: 5 s, fastify: 72 s), and in a training loop the
    #: probe's select() call is a syscall per step for nothing.
    FRESH_SECONDS = 1.0

    def stale(self) -> bool:
        """True when an idle keep-alive connection was closed by the server (it reads as EOF)."""
        if self.sock is None:
            return True
        if time.monotonic() - self.last_used < self.FRESH_SECONDS:
            return False
        try:
            readable, _, _ = select.select([self.sock], [], [], 0)
        except (OSError, ValueError):
            return True
        return bool(readable)

    def request(self, method: str, path: str, headers: bytes, body: Optional[bytes]) -> Tuple[int, Dict[str, str], bytes | bytearray]:
        """Sends one request (``headers``: extra ``Name: value\\r\\n`` lines) and reads the reply."""
        assert self.sock is not None
        head = f"{method} {path} HTTP/1.1\r\n".encode("ascii") + self._host_header + headers
        if body is not None:
            msg = b"".join((head, b"Content-Length: ", str(len(body)).encode("ascii"), b"\r\n\r\n", body))
        else:
            msg = head + b"\r\n"
        try:
            self.sock.sendall(msg)  # one write: no Nagle/delayed-ACK stall between headers and body
        except (BrokenPipeError, ConnectionResetError) as e:
            # The server may refuse a request before reading all of it (413 body_too_large on a
            # declared length over its limit) and close: its reply is then already here to read.
            try:
                reply = self._read_reply(method)
            except (OSError, ProtocolError):
                raise e from None
            self.close()
            return reply
        reply = self._read_reply(method)
        self.last_used = time.monotonic()
        return reply

    def _fill(self) -> None:
        assert self.sock is not None
        chunk = self.sock.recv(262144)
        if not chunk:
            raise ProtocolError("the server closed the connection before the reply was complete")
        self._buf += chunk

    def _read_reply(self, method: str) -> Tuple[int, Dict[str, str], bytes | bytearray]:
        buf = self._buf
        while True:
            end = buf.find(b"\r\n\r\n")
            if end >= 0:
                break
            if len(buf) > 65536:
                raise ProtocolError("reply headers too long")
            self._fill()
        lines = bytes(buf[:end]).decode("latin-1").split("\r\n")
        del buf[: end + 4]
        parts = lines[0].split(" ", 2)
        if len(parts) < 2 or not parts[0].startswith("HTTP/1."):
            raise ProtocolError(f"not an HTTP reply: {lines[0][:80]!r}")
        status = int(parts[1])
        headers: Dict[str, str] = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if status == 100:
            return self._read_reply(method)
        if method == "HEAD" or status in (204, 304):
            body: bytes | bytearray = b""
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            body = self._read_chunked()
        elif "content-length" in headers:
            body = self._read_exact(int(headers["content-length"]))
        else:
            body = self._read_to_close()
        if headers.get("connection", "").lower() == "close":
            self.close()
        return status, headers, body

    def _read_exact(self, n: int) -> bytes | bytearray:
        buf = self._buf
        if len(buf) >= n:
            body = bytes(buf[:n])
            del buf[:n]
            return body
        # Large body: receive straight into one buffer of the right size.
        out = bytearray(n)
        have = len(buf)
        out[:have] = buf
        buf.clear()
        view = memoryview(out)
        assert self.sock is not None
        while have < n:
            got = self.sock.recv_into(view[have:])
            if got == 0:
                raise ProtocolError("the server closed the connection before the reply was complete")
            have += got
        return out  # bytes-like; msgpack reads it in place

    def _read_line(self) -> bytes:
        while True:
            i = self._buf.find(b"\r\n")
            if i >= 0:
                line = bytes(self._buf[:i])
                del self._buf[: i + 2]
                return line
            self._fill()

    def _read_chunked(self) -> bytes:
        parts: List[bytes | bytearray] = []
        while True:
            size = int(self._read_line().split(b";", 1)[0], 16)
            if size == 0:
                while self._read_line():  # trailers
                    pass
                return b"".join(parts)
            parts.append(self._read_exact(size))
            self._read_line()

    def _read_to_close(self) -> bytes:
        assert self.sock is not None
        while True:
            chunk = self.sock.recv(262144)
            if not chunk:
                break
            self._buf += chunk
        body = bytes(self._buf)
        self.close()
        return body
