"""What every model shares: the HTTP details of the call (``ResponseMeta``) and ``to_dict``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from ._decode import encode


@dataclass
class ResponseMeta:
    """What the API answered besides the body."""

    status: int
    request_id: str | None
    #: True when this answer is a replay of an earlier request with the same Idempotency-Key.
    idempotent_replayed: bool
    headers: httpx.Headers
    #: How many HTTP requests the call took (1 + retries).
    attempts: int


class _Model:
    #: The HTTP details of the call that returned this object (None on nested objects).
    last_response: ResponseMeta | None = None

    def to_dict(self) -> dict[str, Any]:
        """The object as JSON-ready data, with the API's field names (timestamps as ``…Z`` strings)."""
        data: dict[str, Any] = encode(self)
        return data
