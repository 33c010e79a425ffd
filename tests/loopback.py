"""Servers on loopback for tests: a free port, an ASGI app served by uvicorn in a thread, and a
plain HTTP server for feeds a test scripts request by request.

The web app, its status page and the MCP server are tested through real HTTP (a browser, the MCP
SDK's client), so they need a real server: this is the one way the tests start it.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import uvicorn

START_WITHIN = 15.0  # seconds uvicorn may take to start (it takes well under one on an idle machine)


def free_port() -> int:
    """A loopback port nobody listens on now (the OS picks it; free again once the probe closes)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def serve_app(app) -> Iterator[str]:
    """Serve `app` with uvicorn on a free loopback port for the block; yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + START_WITHIN
        while not server.started:
            assert time.monotonic() < deadline, f"uvicorn did not start within {START_WITHIN:.0f} s"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


class Replies(BaseHTTPRequestHandler):
    """A request handler for scripted feeds: quiet, with one way to answer."""

    def log_message(self, *args):  # keep test output clean
        pass

    def reply(self, status: int, body: bytes = b"", headers: dict | None = None) -> None:
        self.send_response(status)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve_http(handler: type[BaseHTTPRequestHandler]) -> ThreadingHTTPServer:
    """`handler` served on a free loopback port in a daemon thread (its port: server_address[1])."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd
