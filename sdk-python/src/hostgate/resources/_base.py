"""What every resource does with the transport: decode the answer's ``data`` into its model,
attach the response metadata, and build the lazy lists."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from .._decode import DecodeError, decode, decode_model
from .._transport import NO_BODY, Method, QueryValue, Transport
from ..errors import HostgateError
from ..models import Page, ResponseMeta
from ..pagination import ListResult

M = TypeVar("M")


def _invalid(error: DecodeError, meta: ResponseMeta) -> HostgateError:
    return HostgateError(
        f"the API's answer does not have the expected shape ({error}); a newer client may be needed",
        code="invalid_response",
        status=meta.status,
        request_id=meta.request_id,
        headers=meta.headers,
    )


class Resource:
    def __init__(self, transport: Transport) -> None:
        self._transport = transport

    def _one(
        self,
        model: type[M],
        method: Method,
        path: str,
        *,
        body: object = NO_BODY,
        idempotency_key: str | None = None,
        takes_key: bool = True,
        timeout: float | None = None,
        request_id: str | None = None,
        max_retries: int | None = None,
        query: Mapping[str, QueryValue] | None = None,
    ) -> M:
        """A single resource: the answer's ``data`` as ``model``, with ``last_response``."""
        answer = self._transport.request(
            method, path, query=query, body=body, idempotency_key=idempotency_key, takes_key=takes_key,
            timeout=timeout, request_id=request_id, max_retries=max_retries,
        )
        try:
            if not isinstance(answer.body, dict) or "data" not in answer.body:
                raise DecodeError("body", "expected an object with data")
            result = decode_model(model, answer.body["data"])
        except DecodeError as error:
            raise _invalid(error, answer.meta) from error
        setattr(result, "last_response", answer.meta)
        return result

    def _list(
        self,
        model: type[M],
        path: str,
        query: Mapping[str, QueryValue],
        *,
        cursor: str | None,
        timeout: float | None,
        request_id: str | None,
        max_retries: int | None,
    ) -> ListResult[M]:
        """A lazy list over ``path`` filtered by ``query``, starting at ``cursor``."""

        def fetch(at: str | None) -> Page[M]:
            answer = self._transport.request(
                "GET", path, query={**query, "cursor": at}, timeout=timeout, request_id=request_id, max_retries=max_retries,
            )
            try:
                page = _decode_page(model, answer.body)
            except DecodeError as error:
                raise _invalid(error, answer.meta) from error
            page.last_response = answer.meta
            return page

        return ListResult(fetch, cursor)


def _decode_page(model: type[M], body: object) -> Page[M]:
    if not isinstance(body, dict):
        raise DecodeError("body", "expected an object")
    for name in ("data", "has_more", "next_cursor"):
        if name not in body:
            raise DecodeError(f"body.{name}", "is missing")
    return Page(
        data=decode(list[model], body["data"], "body.data"),  # type: ignore[valid-type]
        has_more=decode(bool, body["has_more"], "body.has_more"),
        next_cursor=decode(str | None, body["next_cursor"], "body.next_cursor"),
    )


def body_of(**fields: Any) -> dict[str, Any]:
    """A request body of the fields given: None means "not sent" (the API's optional fields)."""
    return {k: v for k, v in fields.items() if v is not None}


class Unset:
    """The default of an update's field that may be set to None (None clears it; UNSET leaves it)."""

    def __repr__(self) -> str:
        return "UNSET"


UNSET = Unset()
