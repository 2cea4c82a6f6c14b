"""Every failure the client reports is a :class:`HostgateError`.

The API's error envelope (``{"error": {"code", "message", "request_id", "param"?, "details"?}}``)
becomes one class per status family; a connection failure or a timeout (no answer at all) has
``status`` None. Branch on the class or on ``code`` (stable strings such as ``domain_not_found``).
The mapping is the TypeScript client's (sdk/src/errors.ts), so both clients report the same
answer the same way.
"""

from __future__ import annotations

import email.utils
import json
import math
import re
import time
from typing import Any

import httpx

__all__ = [
    "HostgateError",
    "InvalidRequestError",
    "AuthenticationError",
    "PermissionDeniedError",
    "NotFoundError",
    "ConflictError",
    "RateLimitError",
    "InternalServerError",
    "ServiceUnavailableError",
    "APIConnectionError",
    "APITimeoutError",
    "WebhookSignatureError",
    "error_class_for",
    "parse_retry_after",
]


class HostgateError(Exception):
    """A call that did not succeed: the API's answer, or no answer (``status`` None)."""

    code: str
    message: str
    status: int | None
    param: str | None
    request_id: str | None
    details: dict[str, Any] | None
    retry_after_seconds: int | None
    idempotency_key: str | None
    headers: httpx.Headers | None

    def __init__(
        self,
        message: str,
        *,
        code: str,
        status: int | None,
        param: str | None = None,
        request_id: str | None = None,
        details: dict[str, Any] | None = None,
        retry_after_seconds: int | None = None,
        idempotency_key: str | None = None,
        headers: httpx.Headers | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.param = param
        self.request_id = request_id
        self.details = details
        self.retry_after_seconds = retry_after_seconds
        self.idempotency_key = idempotency_key
        self.headers = headers

    def __str__(self) -> str:
        # What a traceback shows: the message, then what support and retries need.
        facts = [f"status {self.status}" if self.status is not None else "no answer", f"code {self.code}"]
        if self.param:
            facts.append(f"param {self.param}")
        if self.request_id:
            facts.append(f"request {self.request_id}")
        return f"{self.message} ({', '.join(facts)})"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, status={self.status!r}, message={self.message!r}, request_id={self.request_id!r})"


class InvalidRequestError(HostgateError):
    """400, 405, 413, 415, 422: the request is wrong (``invalid_request``, ``idempotency_key_reused``, …); do not retry it as is."""


class AuthenticationError(HostgateError):
    """401: ``missing_api_key``, ``invalid_api_key``."""


class PermissionDeniedError(HostgateError):
    """403: ``insufficient_scope`` (the key lacks the write scope)."""


class NotFoundError(HostgateError):
    """404: ``domain_not_found``, ``destination_not_found``, … (also another organization's ids)."""


class ConflictError(HostgateError):
    """409: ``domain_conflict``, ``destination_in_use``, ``idempotency_key_in_use``, ``subscription_missing``."""


class RateLimitError(HostgateError):
    """429 ``rate_limited``; ``retry_after_seconds`` says when to come back."""


class InternalServerError(HostgateError):
    """500 and any other unexpected status."""


class ServiceUnavailableError(HostgateError):
    """503 ``service_unavailable`` (a dependency of the API is away); ``retry_after_seconds`` says when to come back."""


class APIConnectionError(HostgateError):
    """No answer: the connection failed or broke (code ``connection_error``).

    A write may or may not have been applied: retry it with the same idempotency key.
    """


class APITimeoutError(APIConnectionError):
    """No answer within the timeout (code ``timeout``). As with a connection error, a write's outcome is unknown."""


class WebhookSignatureError(ValueError):
    """A webhook delivery that must not be processed (answer 400).

    ``code`` is one of ``missing_header``, ``malformed_header``, ``timestamp_outside_tolerance``,
    ``no_matching_signature``, ``invalid_payload``.
    """

    code: str

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


_BY_STATUS: dict[int, type[HostgateError]] = {
    400: InvalidRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    405: InvalidRequestError,
    409: ConflictError,
    413: InvalidRequestError,
    415: InvalidRequestError,
    422: InvalidRequestError,
    429: RateLimitError,
    503: ServiceUnavailableError,
}


def error_class_for(status: int) -> type[HostgateError]:
    """The class for an HTTP status: the family's, else invalid request (4xx) or internal (anything else)."""
    found = _BY_STATUS.get(status)
    if found is not None:
        return found
    return InvalidRequestError if 400 <= status < 500 else InternalServerError


_DELTA_SECONDS = re.compile(r"^\d+$")
_STARTS_WITH_DAY = re.compile(r"^[A-Za-z]{3}")


def parse_retry_after(value: str | None, now: float | None = None) -> int | None:
    """``Retry-After`` as whole seconds: delta-seconds or an HTTP date; None when absent or unreadable."""
    if value is None or value.strip() == "":
        return None
    text = value.strip()
    if _DELTA_SECONDS.match(text):
        return int(text)
    # HTTP dates (the three RFC 9110 forms) start with a day name; anything else ("-3", "1.5") is no answer.
    if not _STARTS_WITH_DAY.match(text):
        return None
    try:
        at = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    delta = at.timestamp() - (time.time() if now is None else now)
    return max(0, math.ceil(delta))


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def error_from_response(status: int, headers: httpx.Headers, body: bytes, idempotency_key: str | None) -> HostgateError:
    """The error for a non-2xx answer, from its envelope when it has one."""
    envelope: dict[str, Any] = {}
    try:
        parsed = json.loads(body)
        if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
            envelope = parsed["error"]
    except ValueError:
        pass  # Not JSON: an answer from something in front of the API (a proxy's 502 page).
    text = body.decode("utf-8", errors="replace")
    details = envelope.get("details")
    cls = error_class_for(status)
    return cls(
        _text(envelope.get("message"))
        or f"the API answered HTTP {status} without an error envelope" + (f": {text[:200]}" if text else ""),
        code=_text(envelope.get("code")) or f"http_{status}",
        status=status,
        param=_text(envelope.get("param")),
        request_id=_text(envelope.get("request_id")) or headers.get("x-request-id"),
        details=details if isinstance(details, dict) else None,
        retry_after_seconds=parse_retry_after(headers.get("retry-after")),
        idempotency_key=idempotency_key,
        headers=headers,
    )
