"""Fixtures for the suite, which runs against the real API.

The suite is started by the jest test test/sdk-python.test.ts (``npm run test:unit --
test/sdk-python.test.ts``, and ``npm test``), which builds the real app on real Postgres and
Temporal and passes, in the environment:

- ``HOSTGATE_BASE_URL`` / ``HOSTGATE_API_KEY``: the API and a key of an organization with every scope;
- ``HOSTGATE_TEST_UNAVAILABLE_URL``: the same API reaching Postgres through a proxy the control
  server cuts (503 ``service_unavailable``, ``Retry-After: 5``);
- ``HOSTGATE_TEST_RATE_LIMITED_URL``: the same API rate-limited to one request per 4 s, burst 1 (429);
- ``HOSTGATE_TEST_CONTROL_URL``: the control server (new organizations and keys, cutting Postgres,
  the webhook fan-out and delivery attempts the worker would make).
"""

from __future__ import annotations

import http.server
import os
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

import hostgate

_counter = 0


def uniq() -> str:
    """A short value unique in this run (hostnames, URLs, keys)."""
    global _counter
    _counter += 1
    return f"{int(time.time() * 1000):x}{_counter}"


def new_key(label: str = "k") -> str:
    return f"py-test-{label}-{uniq()}"


def _env(name: str) -> str:
    value = os.environ.get(name)
    if not value:
        pytest.fail(f"{name} is not set: this suite runs against the real API through `npm run test:unit -- test/sdk-python.test.ts`")
    return value


class Control:
    """The jest test's control server: what only the process that runs the API can do."""

    def __init__(self, url: str) -> None:
        self._http = httpx.Client(base_url=url, timeout=30)

    def _post(self, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        response = self._http.post(path, json=body or {})
        assert response.status_code == 200, f"control {path}: {response.status_code} {response.text}"
        data: dict[str, Any] = response.json()
        return data

    def new_org(self, name: str = "Python client org", scopes: list[str] | None = None) -> str:
        """A new organization (nothing of other tests in its lists); returns its API key."""
        body: dict[str, Any] = {"name": name}
        if scopes is not None:
            body["scopes"] = scopes
        return str(self._post("/orgs", body)["api_key"])

    def cut_postgres(self) -> None:
        self._post("/postgres/cut")

    def restore_postgres(self) -> None:
        self._post("/postgres/restore")

    def fan_out(self) -> int:
        return int(self._post("/webhooks/fan-out")["deliveries"])

    def attempt(self, delivery_id: str) -> None:
        self._post("/webhooks/attempt", {"delivery_id": delivery_id})

    def close(self) -> None:
        self._http.close()


@pytest.fixture(scope="session")
def base_url() -> str:
    return _env("HOSTGATE_BASE_URL")


@pytest.fixture(scope="session")
def api_key() -> str:
    return _env("HOSTGATE_API_KEY")


@pytest.fixture(scope="session")
def unavailable_url() -> str:
    return _env("HOSTGATE_TEST_UNAVAILABLE_URL")


@pytest.fixture(scope="session")
def rate_limited_url() -> str:
    return _env("HOSTGATE_TEST_RATE_LIMITED_URL")


@pytest.fixture(scope="session")
def control() -> Iterator[Control]:
    c = Control(_env("HOSTGATE_TEST_CONTROL_URL"))
    yield c
    c.close()


@pytest.fixture()
def client(api_key: str, base_url: str) -> Iterator[hostgate.Hostgate]:
    with hostgate.Hostgate(api_key=api_key, base_url=base_url) as c:
        yield c


class Recorder:
    """An ``httpx.Client`` that records ``"METHOD /path"`` (and the headers) of every request it sends."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.requests: list[httpx.Request] = []
        self.http = httpx.Client(event_hooks={"request": [self._record]})

    def _record(self, request: httpx.Request) -> None:
        self.calls.append(f"{request.method} {request.url.path}")
        self.requests.append(request)

    def clear(self) -> None:
        self.calls.clear()
        self.requests.clear()


@pytest.fixture()
def recorder() -> Iterator[Recorder]:
    r = Recorder()
    yield r
    r.http.close()


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """A webhook receiver on loopback that records every request and answers 200."""

    server: http.server.ThreadingHTTPServer
    received: list[Received] = field(default_factory=list)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def requests_to(self, path: str) -> list[Received]:
        return [r for r in self.received if r.path == path]


@pytest.fixture()
def receiver() -> Iterator[Receiver]:
    holder: list[Receiver] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
            body = self.rfile.read(int(self.headers.get("content-length") or 0))
            holder[0].received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
            self.send_response(200)
            self.send_header("content-type", "text/plain")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    holder.append(Receiver(server))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield holder[0]
    server.shutdown()
    server.server_close()


@pytest.fixture()
def silent_server() -> Iterator[str]:
    """A TCP peer that accepts connections and never answers: the URL of it."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
                accepted.append(conn)
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    thread.join()
    for s in accepted:
        s.close()
    listener.close()


@pytest.fixture()
def closed_port_url() -> str:
    """The URL of a loopback port nothing listens on (connections are refused)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}"
