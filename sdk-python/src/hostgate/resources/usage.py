from __future__ import annotations

from ..models import Usage as UsageModel
from ._base import Resource


class Usage(Resource):
    """The plan's usage in the current period (hostnames, overage estimate, bandwidth)."""

    def get(self, *, timeout: float | None = None, request_id: str | None = None, max_retries: int | None = None) -> UsageModel:
        """GET /v1/usage."""
        return self._one(UsageModel, "GET", "/v1/usage", timeout=timeout, request_id=request_id, max_retries=max_retries)
