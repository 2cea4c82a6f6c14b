"""One HTTP exchange with the API, and the retry policy around it (the TypeScript client's, sdk/src/transport.ts):

- reads (GET) are retried on 429 and 503, waiting what ``Retry-After`` asks, and on connection
  failures, at most ``max_read_retries`` times, never waiting longer than ``max_retry_delay`` at
  once (a server asking for longer gets the error handed to the caller instead): so a read waits
  at most ``max_read_retries × max_retry_delay`` seconds in all, besides its requests' timeouts;
- writes are never retried here: whether a write whose answer was lost took effect is unknown,
  and the contract leaves that decision to the caller, who retries with the same idempotency key;
- a timeout is not retried either: the caller chose that budget.
"""

from __future__ import annotations

import json
import logging
import random
import re
import time
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import httpx

from ._version import VERSION
from .errors import APIConnectionError, APITimeoutError, HostgateError, error_from_response
from .models import ResponseMeta

log = logging.getLogger("hostgate")

Method = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
QueryValue = str | int | bool | None

DEFAULT_TIMEOUT = 30.0
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_MAX_READ_RETRIES = 2
DEFAULT_MAX_RETRY_DELAY = 10.0
MAX_KEY_LENGTH = 128

_HEADER_SAFE = re.compile(r"^[\x21-\x7e]+$")
_ORIGIN = re.compile(r"^https?://[^/]+", re.IGNORECASE)


class _NoBody:
    """Marks a request sent without a body (no Content-Type either): DELETE, verify, retry, rotate-secret."""


NO_BODY = _NoBody()


def check_idempotency_key(key: object) -> str:
    """Checks an idempotency key before anything is sent: a missing key is a bug in the caller."""
    if not isinstance(key, str) or key == "":
        raise TypeError(
            "this write needs idempotency_key=…: a stable key of 1–128 characters that you reuse when retrying it "
            "(or hostgate.Hostgate.generate_key())"
        )
    if len(key) > MAX_KEY_LENGTH:
        raise ValueError(f"idempotency_key is {len(key)} characters; at most {MAX_KEY_LENGTH} are accepted")
    return key


def _check_seconds(name: str, value: float | None, allow_zero: bool) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{name} must be a {'non-negative' if allow_zero else 'positive'} number, got {value!r}")


def path_of(collection: str, id: object, suffix: str = "") -> str:
    """``/v1/<collection>/<id><suffix>`` with the id checked and percent-encoded."""
    if not isinstance(id, str) or id == "":
        raise ValueError(f"expected an id string for {collection}, got {id!r}")
    return f"/v1/{collection}/{urllib.parse.quote(id, safe='')}{suffix}"


@dataclass
class Answer:
    body: Any
    meta: ResponseMeta


class Transport:
    def __init__(
        self,
        *,
        api_key: str,
        base_url: str,
        timeout: float,
        connect_timeout: float,
        max_read_retries: int,
        max_retry_delay: float,
        http_client: httpx.Client | None,
    ) -> None:
        if not isinstance(api_key, str) or api_key.strip() == "":
            raise ValueError("Hostgate(api_key=…) needs the API key (hg_live_…), e.g. api_key=os.environ['HOSTGATE_API_KEY']")
        if not _HEADER_SAFE.match(api_key):
            raise ValueError("the API key has spaces or characters that cannot go in a header: check how it was copied")
        if not isinstance(base_url, str) or not _ORIGIN.match(base_url):
            raise ValueError(f"Hostgate(base_url=…) needs the API origin, e.g. https://api.example.com; got {base_url!r}")
        _check_seconds("timeout", timeout, False)
        _check_seconds("connect_timeout", connect_timeout, False)
        _check_seconds("max_read_retries", max_read_retries, True)
        _check_seconds("max_retry_delay", max_retry_delay, True)
        self._api_key = api_key
        self._origin = re.sub(r"/v1$", "", base_url.rstrip("/"))
        self._timeout = float(timeout)
        self._connect_timeout = float(connect_timeout)
        self._max_read_retries = int(max_read_retries)
        self._max_retry_delay = float(max_retry_delay)
        # A client passed in is the caller's to close; one made here is closed by close().
        self._owns_client = http_client is None
        self._http = http_client if http_client is not None else httpx.Client(follow_redirects=False)

    def close(self) -> None:
        if self._owns_client:
            self._http.close()

    def url(self, path: str) -> str:
        return self._origin + path

    def request(
        self,
        method: Method,
        path: str,
        *,
        query: Mapping[str, QueryValue] | None = None,
        body: object = NO_BODY,
        idempotency_key: str | None = None,
        takes_key: bool = True,
        timeout: float | None = None,
        request_id: str | None = None,
        max_retries: int | None = None,
    ) -> Answer:
        read = method == "GET"
        key = None if read or not takes_key else check_idempotency_key(idempotency_key)
        _check_seconds("timeout", timeout, False)
        _check_seconds("max_retries", max_retries, True)
        retries = (self._max_read_retries if max_retries is None else int(max_retries)) if read else 0
        headers = {
            "authorization": f"Bearer {self._api_key}",
            "accept": "application/json",
            "user-agent": f"hostgate-python/{VERSION}",
        }
        content: bytes | None = None
        if not isinstance(body, _NoBody):
            headers["content-type"] = "application/json"
            content = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        if key is not None:
            headers["idempotency-key"] = key
        if request_id:
            headers["x-request-id"] = request_id
        params = {k: _query_text(v) for k, v in (query or {}).items() if v is not None}
        per_attempt = httpx.Timeout(self._timeout if timeout is None else timeout, connect=self._connect_timeout)

        attempt = 0
        while True:
            attempt += 1
            failure: HostgateError
            try:
                response = self._exchange(method, path, headers, params, content, per_attempt, key)
                meta = ResponseMeta(
                    status=response.status_code,
                    request_id=response.headers.get("x-request-id"),
                    idempotent_replayed=response.headers.get("idempotent-replayed") == "true",
                    headers=response.headers,
                    attempts=attempt,
                )
                if 200 <= response.status_code < 300:
                    return Answer(self._parse(response, key), meta)
                failure = error_from_response(response.status_code, response.headers, response.content, key)
            except APITimeoutError:
                raise
            except APIConnectionError as error:
                failure = error
            retryable = failure.status in (429, 503) or failure.status is None
            if not read or not retryable or attempt > retries:
                raise failure
            # The server's Retry-After when it gave one, else a short exponential backoff with jitter.
            if failure.retry_after_seconds is not None:
                delay = float(failure.retry_after_seconds)
            else:
                delay = min(self._max_retry_delay, 0.5 * 2 ** (attempt - 1) * (0.75 + random.random() / 2))
            if delay > self._max_retry_delay:
                raise failure
            log.info("hostgate: %s %s answered %s; retrying in %.1f s", method, path, failure.status or failure.code, delay)
            time.sleep(delay)

    def _exchange(
        self,
        method: str,
        path: str,
        headers: dict[str, str],
        params: dict[str, str],
        content: bytes | None,
        timeout: httpx.Timeout,
        key: str | None,
    ) -> httpx.Response:
        url = self.url(path)
        try:
            # read() within the same call: a body that stalls halfway is a timeout too.
            return self._http.request(method, url, headers=headers, params=params, content=content, timeout=timeout)
        except httpx.TimeoutException as error:
            raise APITimeoutError(
                f"no answer from {method} {path} within {timeout.read} s",
                code="timeout",
                status=None,
                idempotency_key=key,
            ) from error
        except httpx.TransportError as error:
            raise APIConnectionError(
                f"could not reach the Hostgate API at {self._origin} ({type(error).__name__}: {error})",
                code="connection_error",
                status=None,
                idempotency_key=key,
            ) from error

    def _parse(self, response: httpx.Response, key: str | None) -> Any:
        if response.content == b"":
            return None
        try:
            return json.loads(response.content)
        except ValueError as error:
            raise HostgateError(
                f"the API answered {response.status_code} with a body that is not JSON",
                code="invalid_response",
                status=response.status_code,
                request_id=response.headers.get("x-request-id"),
                idempotency_key=key,
                headers=response.headers,
            ) from error


def _query_text(value: str | int | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
