"""Lists walk every page with keyset cursors, newest first, one request per page, only when iterated."""

from __future__ import annotations

import pytest
from conftest import Control, Recorder, new_key, uniq

import hostgate


def test_lists_walk_every_page_lazily(control: Control, base_url: str, recorder: Recorder) -> None:
    with hostgate.Hostgate(api_key=control.new_org("Pagination org"), base_url=base_url, http_client=recorder.http) as c:
        ids = [c.destinations.create(url=f"https://page-{i}-{uniq()}.example.com", idempotency_key=new_key("page")).id for i in range(5)]
        newest_first = list(reversed(ids))
        recorder.clear()

        listing = c.destinations.list(limit=2)
        assert recorder.calls == []  # nothing is sent before the list is iterated
        pages = list(listing.pages())
        assert [len(p.data) for p in pages] == [2, 2, 1]
        assert [p.has_more for p in pages] == [True, True, False]
        assert pages[2].next_cursor is None
        assert [d.id for p in pages for d in p.data] == newest_first
        assert all(p.last_response is not None and p.last_response.status == 200 for p in pages)
        # One request per page, each carrying the previous page's cursor.
        assert recorder.calls == ["GET /v1/destinations"] * 3
        assert [r.url.params.get("cursor") for r in recorder.requests] == [None, pages[0].next_cursor, pages[1].next_cursor]
        assert all(r.url.params["limit"] == "2" for r in recorder.requests)

        first = c.destinations.list(limit=2).first_page()
        assert [d.id for d in first.data] == newest_first[:2]
        assert first.next_cursor is not None
        second = c.destinations.list(limit=2, cursor=first.next_cursor).first_page()
        assert [d.id for d in second.data] == newest_first[2:4]
        # Iterating the list itself gives the items of every page; the cursor is where it starts.
        assert [d.id for d in c.destinations.list(limit=3)] == newest_first
        assert [d.id for d in c.destinations.list(limit=2, cursor=first.next_cursor)] == newest_first[2:]
        assert [d.id for d in c.destinations.list().to_list()] == newest_first
        with pytest.raises(OverflowError):
            c.destinations.list(limit=1).to_list(max_items=3)

        with pytest.raises(hostgate.InvalidRequestError) as bad:
            c.destinations.list(cursor="not-a-cursor").first_page()
        assert (bad.value.status, bad.value.code, bad.value.param) == (400, "invalid_request", "cursor")
        with pytest.raises(hostgate.InvalidRequestError) as too_many:
            c.destinations.list(limit=101).first_page()
        assert (too_many.value.status, too_many.value.code) == (400, "invalid_request")
