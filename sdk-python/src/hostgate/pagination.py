"""Lists are keyset-paginated: each page carries ``has_more`` and an opaque ``next_cursor``, passed
back as ``cursor`` for the next page. A :class:`ListResult` walks them lazily, one request per page,
only when iterated::

    for domain in client.domains.list(status="active"):         # item by item, across pages
        ...
    for page in client.domains.list(limit=100).pages():          # page by page
        handle(page.data)
    page = client.domains.list(limit=10).first_page()            # one page, one request
    more = client.domains.list(limit=10, cursor=page.next_cursor).first_page()
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, TypeVar

from .models import Page

T = TypeVar("T")

#: Fetches the page at a cursor (None: the first).
PageFetcher = Callable[[str | None], Page[T]]

DEFAULT_MAX_ITEMS = 10_000


class ListResult(Generic[T]):
    """A lazy list over every page: iterate it for the items, ``pages()`` for the pages."""

    def __init__(self, fetch_page: PageFetcher[T], cursor: str | None) -> None:
        self._fetch_page = fetch_page
        self._cursor = cursor

    def first_page(self) -> Page[T]:
        """The first page (from ``cursor`` when one was given): one request."""
        return self._fetch_page(self._cursor)

    def pages(self) -> Iterator[Page[T]]:
        """Every page in turn, newest first, until ``has_more`` is false."""
        cursor = self._cursor
        while True:
            page = self._fetch_page(cursor)
            yield page
            if not page.has_more or not page.next_cursor:
                return
            cursor = page.next_cursor

    def __iter__(self) -> Iterator[T]:
        """Every item of every page in turn."""
        for page in self.pages():
            yield from page.data

    def to_list(self, max_items: int = DEFAULT_MAX_ITEMS) -> list[T]:
        """The items of all pages in one list, refusing to collect more than ``max_items``."""
        out: list[T] = []
        for item in self:
            if len(out) >= max_items:
                raise OverflowError(f"the list has more than {max_items} items; iterate it instead, or raise max_items")
            out.append(item)
        return out
