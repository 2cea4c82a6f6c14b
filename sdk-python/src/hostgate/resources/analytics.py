from __future__ import annotations

from datetime import datetime

from ..models import AnalyticsInterval, AnalyticsSort, OrganizationAnalytics
from ._base import Resource
from .domains import _timestamp


class Analytics(Resource):
    """The organization's traffic: totals and its top hostnames (per domain: ``domains.analytics``)."""

    def get(
        self,
        *,
        from_: datetime | str | None = None,
        to: datetime | str | None = None,
        interval: AnalyticsInterval | None = None,
        sort: AnalyticsSort | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        timeout: float | None = None,
        request_id: str | None = None,
        max_retries: int | None = None,
    ) -> OrganizationAnalytics:
        """GET /v1/analytics: totals over [``from_``, ``to``) and a page of hostnames by ``sort``; pass
        ``next_cursor`` as ``cursor`` (same other arguments) for the next page."""
        query = {"from": _timestamp(from_), "to": _timestamp(to), "interval": interval, "sort": sort, "limit": limit, "cursor": cursor}
        return self._one(
            OrganizationAnalytics, "GET", "/v1/analytics", query=query,
            timeout=timeout, request_id=request_id, max_retries=max_retries,
        )
