"""Traffic analytics (``GET /v1/domains/{id}/analytics``, ``GET /v1/analytics``), re-exported by
:mod:`hostgate.models`; kept apart so each module stays readable."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from ._model_base import _Model

AnalyticsInterval = Literal["minute", "hour", "day"]
AnalyticsSort = Literal["requests", "errors", "bytes"]


@dataclass
class AnalyticsTotals(_Model):
    """Traffic counters summed over a range and every edge; percentiles in ms (None: no origin answer)."""

    requests: int
    status_2xx: int
    status_3xx: int
    status_4xx: int
    status_5xx: int
    edge_answers: int
    no_answer: int
    bytes_in: int
    bytes_out: int
    http1: int
    http2: int
    tls12: int
    tls13: int
    origin_ms_p50: float | None
    origin_ms_p95: float | None
    origin_ms_p99: float | None
    total_ms_mean: float | None


@dataclass
class AnalyticsBucket(AnalyticsTotals):
    """One bucket of a domain's traffic (minute, hour or day starting at ``start``): the counters of
    :class:`AnalyticsTotals` (the API shares them too) and its start."""

    start: datetime


@dataclass
class DomainAnalytics(_Model):
    """A domain's traffic over [``start``, ``end``): totals and the buckets with traffic, oldest first."""

    domain_id: str
    hostname: str
    start: datetime
    end: datetime
    interval: AnalyticsInterval
    totals: AnalyticsTotals
    buckets: list[AnalyticsBucket]


@dataclass
class TopHostname(_Model):
    domain_id: str
    hostname: str
    requests: int
    errors: int
    bytes: int
    status_4xx: int
    status_5xx: int
    bytes_in: int
    bytes_out: int


@dataclass
class OrganizationAnalytics(_Model):
    """The organization's traffic totals and one page of its top hostnames (``next_cursor`` continues)."""

    start: datetime
    end: datetime
    interval: AnalyticsInterval
    sort: AnalyticsSort
    totals: AnalyticsTotals
    top: list[TopHostname]
    has_more: bool
    next_cursor: str | None
