from __future__ import annotations

from .._transport import path_of
from ..models import Destination
from ..pagination import ListResult
from ._base import Resource


class Destinations(Resource):
    """Your application's HTTPS origins (``https://host[:443|8443]``) that domains point at."""

    def create(self, *, url: str, idempotency_key: str, timeout: float | None = None, request_id: str | None = None) -> Destination:
        """POST /v1/destinations (scope destinations:write)."""
        return self._one(Destination, "POST", "/v1/destinations", body={"url": url}, idempotency_key=idempotency_key, timeout=timeout, request_id=request_id)

    def list(
        self,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        timeout: float | None = None,
        request_id: str | None = None,
        max_retries: int | None = None,
    ) -> ListResult[Destination]:
        """GET /v1/destinations: newest first."""
        return self._list(Destination, "/v1/destinations", {"limit": limit}, cursor=cursor, timeout=timeout, request_id=request_id, max_retries=max_retries)

    def update(self, destination_id: str, /, *, url: str, idempotency_key: str, timeout: float | None = None, request_id: str | None = None) -> Destination:
        """PATCH /v1/destinations/{id}: a new ``url`` (same rules as creation); its domains re-route within 2 s."""
        return self._one(Destination, "PATCH", path_of("destinations", destination_id), body={"url": url}, idempotency_key=idempotency_key, timeout=timeout, request_id=request_id)

    def get(self, destination_id: str, /, *, timeout: float | None = None, request_id: str | None = None, max_retries: int | None = None) -> Destination:
        """GET /v1/destinations/{id}."""
        return self._one(Destination, "GET", path_of("destinations", destination_id), timeout=timeout, request_id=request_id, max_retries=max_retries)

    def delete(self, destination_id: str, /, *, idempotency_key: str, timeout: float | None = None, request_id: str | None = None) -> Destination:
        """DELETE /v1/destinations/{id}: refused with 409 ``destination_in_use`` while a domain points at it."""
        return self._one(Destination, "DELETE", path_of("destinations", destination_id), idempotency_key=idempotency_key, timeout=timeout, request_id=request_id)
