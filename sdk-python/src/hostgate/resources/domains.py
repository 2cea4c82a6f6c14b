from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from .._transport import path_of
from datetime import datetime

from .._decode import encode
from ..models import AnalyticsInterval, Domain, DomainAnalytics, DomainStatus
from ..pagination import ListResult
from ._base import UNSET, Resource, Unset, body_of


class Domains(Resource):
    """Your customers' hostnames: DNS instructions, verification, certificate, status."""

    def create(
        self,
        *,
        hostname: str,
        destination_id: str,
        external_customer_id: str | None = None,
        also_connect: Literal["www", "apex"] | None = None,
        idempotency_key: str,
        timeout: float | None = None,
        request_id: str | None = None,
    ) -> Domain:
        """POST /v1/domains (scope domains:write): ``pending_dns``, with the ``dns_records`` to set.

        With ``also_connect`` ("www" for an apex, "apex" for a www. name) the other hostname is
        created too, redirecting to this one; read it with ``list(hostname=…)``.
        """
        body = body_of(hostname=hostname, destination_id=destination_id, external_customer_id=external_customer_id, also_connect=also_connect)
        return self._one(Domain, "POST", "/v1/domains", body=body, idempotency_key=idempotency_key, timeout=timeout, request_id=request_id)

    def update(
        self,
        domain_id: str,
        /,
        *,
        destination_id: str | None = None,
        metadata: Mapping[str, str] | None | Unset = UNSET,
        redirect: Mapping[str, Any] | None | Unset = UNSET,
        external_customer_id: str | None | Unset = UNSET,
        tls: Mapping[str, Any] | None = None,
        idempotency_key: str,
        timeout: float | None = None,
        request_id: str | None = None,
    ) -> Domain:
        """PATCH /v1/domains/{id}: the fields given change (at least one).

        ``destination_id`` re-points (the certificate stays); ``metadata`` replaces (None clears);
        ``redirect={"to": …, "status": 301, "preserve_path": True}`` (None removes it);
        ``tls={"min_version": "1.3", "hsts": {…} | None}``.
        """
        body: dict[str, Any] = body_of(destination_id=destination_id, tls=None if tls is None else dict(tls))
        for name, value in (("metadata", metadata), ("redirect", redirect), ("external_customer_id", external_customer_id)):
            if not isinstance(value, Unset):
                body[name] = dict(value) if isinstance(value, Mapping) else value
        return self._one(Domain, "PATCH", path_of("domains", domain_id), body=body, idempotency_key=idempotency_key, timeout=timeout, request_id=request_id)

    def list(
        self,
        *,
        status: DomainStatus | None = None,
        hostname: str | None = None,
        external_customer_id: str | None = None,
        metadata: tuple[str, str] | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        timeout: float | None = None,
        request_id: str | None = None,
        max_retries: int | None = None,
    ) -> ListResult[Domain]:
        """GET /v1/domains: newest first; filters ``status``, ``hostname``, ``external_customer_id``, ``metadata=(key, value)``."""
        query: dict[str, Any] = {"status": status, "hostname": hostname, "external_customer_id": external_customer_id, "limit": limit}
        if metadata is not None:
            query[f"metadata[{metadata[0]}]"] = metadata[1]
        return self._list(Domain, "/v1/domains", query, cursor=cursor, timeout=timeout, request_id=request_id, max_retries=max_retries)

    def get(self, domain_id: str, /, *, timeout: float | None = None, request_id: str | None = None, max_retries: int | None = None) -> Domain:
        """GET /v1/domains/{id}: status, DNS records, the last ``verification`` and this period's ``bandwidth``."""
        return self._one(Domain, "GET", path_of("domains", domain_id), timeout=timeout, request_id=request_id, max_retries=max_retries)

    def delete(self, domain_id: str, /, *, idempotency_key: str, timeout: float | None = None, request_id: str | None = None) -> Domain:
        """DELETE /v1/domains/{id}: answers 202 with the domain ``deleting``."""
        return self._one(Domain, "DELETE", path_of("domains", domain_id), idempotency_key=idempotency_key, timeout=timeout, request_id=request_id)

    def verify(self, domain_id: str, /, *, idempotency_key: str, timeout: float | None = None, request_id: str | None = None) -> Domain:
        """POST /v1/domains/{id}/verify: check DNS now instead of at the next backoff step (202)."""
        return self._one(Domain, "POST", path_of("domains", domain_id, "/verify"), idempotency_key=idempotency_key, timeout=timeout, request_id=request_id)

    def put_certificate(
        self, domain_id: str, /, *, certificate: str, private_key: str, idempotency_key: str, timeout: float | None = None, request_id: str | None = None
    ) -> Domain:
        """PUT /v1/domains/{id}/certificate: your own certificate (PEM chain, unencrypted PEM key) in place of a
        managed one. ``certificate.renews_at`` then says when a managed one replaces it if DNS points at
        Hostgate (3 days before it lapses); each refusal is its own 422 code."""
        body = body_of(certificate=certificate, private_key=private_key)
        return self._one(Domain, "PUT", path_of("domains", domain_id, "/certificate"), body=body, idempotency_key=idempotency_key, timeout=timeout, request_id=request_id)

    def delete_certificate(self, domain_id: str, /, *, idempotency_key: str, timeout: float | None = None, request_id: str | None = None) -> Domain:
        """DELETE /v1/domains/{id}/certificate: back to managed certificates (yours is served until one is stored)."""
        return self._one(Domain, "DELETE", path_of("domains", domain_id, "/certificate"), idempotency_key=idempotency_key, timeout=timeout, request_id=request_id)

    def analytics(
        self,
        domain_id: str,
        /,
        *,
        from_: datetime | str | None = None,
        to: datetime | str | None = None,
        interval: AnalyticsInterval | None = None,
        timeout: float | None = None,
        request_id: str | None = None,
        max_retries: int | None = None,
    ) -> DomainAnalytics:
        """GET /v1/domains/{id}/analytics: the domain's traffic per ``interval`` (minute ≤ 48 h, hour ≤ 31 days,
        day ≤ 400 days) over [``from_``, ``to``), summed over every edge."""
        query = {"from": _timestamp(from_), "to": _timestamp(to), "interval": interval}
        return self._one(
            DomainAnalytics, "GET", path_of("domains", domain_id, "/analytics"), query=query,
            timeout=timeout, request_id=request_id, max_retries=max_retries,
        )


def _timestamp(value: datetime | str | None) -> str | None:
    """A datetime as the API's timestamp text (UTC, milliseconds); a string as given."""
    if value is None or isinstance(value, str):
        return value
    out: str = encode(value)
    return out
