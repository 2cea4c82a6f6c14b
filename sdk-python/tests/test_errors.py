"""Typed errors with code, status, param and request id; idempotency; connection failures and timeouts."""

from __future__ import annotations

import re
import time

import pytest
from conftest import Control, Recorder, new_key, uniq

import hostgate
from hostgate.errors import error_class_for, parse_retry_after


def test_each_status_family_has_its_class_with_code_status_param_and_request_id(client: hostgate.Hostgate, control: Control, base_url: str) -> None:
    with pytest.raises(hostgate.NotFoundError) as not_found:
        client.domains.get("dom_doesnotexist", request_id="py-test-404")
    e = not_found.value
    assert (e.status, e.code, e.request_id, e.param) == (404, "domain_not_found", "py-test-404", "id")
    assert "dom_doesnotexist" in e.message
    assert str(e) == f"{e.message} (status 404, code domain_not_found, param id, request py-test-404)"

    with pytest.raises(hostgate.InvalidRequestError) as invalid:
        client.destinations.create(url="http://plain.example.com", idempotency_key=new_key())
    assert (invalid.value.status, invalid.value.code, invalid.value.param) == (400, "invalid_request", "url")
    assert re.match(r"^req_", invalid.value.request_id or "")

    with pytest.raises(hostgate.AuthenticationError) as unauthenticated:
        with hostgate.Hostgate(api_key="hg_live_doesnotexist", base_url=base_url) as stranger:
            stranger.domains.list().first_page()
    assert (unauthenticated.value.status, unauthenticated.value.code) == (401, "invalid_api_key")

    with pytest.raises(hostgate.PermissionDeniedError) as forbidden:
        with hostgate.Hostgate(api_key=control.new_org("Read-only org", scopes=[]), base_url=base_url) as read_only:
            assert read_only.domains.list().to_list() == []  # reads need no scope
            read_only.destinations.create(url="https://ro.example.com", idempotency_key=new_key())
    assert (forbidden.value.status, forbidden.value.code) == (403, "insufficient_scope")

    destination = client.destinations.create(url=f"https://conflict-{uniq()}.example.com", idempotency_key=new_key())
    hostname = f"conflict-{uniq()}.sdk-python.example"
    client.domains.create(hostname=hostname, destination_id=destination.id, idempotency_key=new_key())
    with pytest.raises(hostgate.ConflictError) as conflict:
        client.domains.create(hostname=hostname, destination_id=destination.id, idempotency_key=new_key())
    assert (conflict.value.status, conflict.value.code) == (409, "domain_conflict")
    with pytest.raises(hostgate.ConflictError) as in_use:
        client.destinations.delete(destination.id, idempotency_key=new_key())
    assert (in_use.value.status, in_use.value.code) == (409, "destination_in_use")
    with pytest.raises(hostgate.NotFoundError) as no_destination:
        client.domains.create(hostname=f"nodst-{uniq()}.sdk-python.example", destination_id="dst_doesnotexist", idempotency_key=new_key())
    assert (no_destination.value.code, no_destination.value.param) == ("destination_not_found", "destination_id")

    for error in (not_found, invalid, unauthenticated, forbidden, conflict):
        assert isinstance(error.value, hostgate.HostgateError)
        assert error.value.headers is not None and error.value.headers["x-request-id"] == error.value.request_id


def test_the_class_of_every_status() -> None:
    expected = {
        400: hostgate.InvalidRequestError, 401: hostgate.AuthenticationError, 403: hostgate.PermissionDeniedError,
        404: hostgate.NotFoundError, 405: hostgate.InvalidRequestError, 409: hostgate.ConflictError,
        410: hostgate.InvalidRequestError, 413: hostgate.InvalidRequestError, 415: hostgate.InvalidRequestError,
        422: hostgate.InvalidRequestError, 429: hostgate.RateLimitError, 500: hostgate.InternalServerError,
        502: hostgate.InternalServerError, 503: hostgate.ServiceUnavailableError, 302: hostgate.InternalServerError,
    }
    assert {status: error_class_for(status) for status in expected} == expected
    assert issubclass(hostgate.APITimeoutError, hostgate.APIConnectionError)


def test_retry_after_is_delta_seconds_or_an_http_date() -> None:
    now = 1_795_672_800.0  # Thu, 26 Nov 2026 06:00:00 GMT
    assert parse_retry_after("5", now) == 5
    assert parse_retry_after(" 0 ", now) == 0
    assert parse_retry_after("Thu, 26 Nov 2026 06:00:30 GMT", now) == 30
    assert parse_retry_after("Thu, 26 Nov 2026 05:59:00 GMT", now) == 0
    for bad in (None, "", "soon", "-3", "1.5", "Thu, 99 Nov 2026 06:00:30 GMT"):
        assert parse_retry_after(bad, now) is None, bad


def test_idempotent_replay_answers_the_original_and_a_reused_key_is_refused(client: hostgate.Hostgate) -> None:
    key = new_key("replay")
    first = client.destinations.create(url="https://replay.example.com", idempotency_key=key)
    again = client.destinations.create(url="https://replay.example.com", idempotency_key=key)
    assert again.id == first.id
    assert first.last_response is not None and first.last_response.idempotent_replayed is False
    assert again.last_response is not None and (again.last_response.status, again.last_response.idempotent_replayed) == (201, True)
    with pytest.raises(hostgate.InvalidRequestError) as reused:
        client.destinations.create(url="https://other.example.com", idempotency_key=key)
    assert (reused.value.status, reused.value.code, reused.value.idempotency_key) == (422, "idempotency_key_reused", key)

    assert re.fullmatch(r"hg_[0-9a-f-]{36}", hostgate.Hostgate.generate_key())
    assert re.fullmatch(r"order-42_[0-9a-f-]{36}", hostgate.Hostgate.generate_key("order-42"))
    assert hostgate.Hostgate.generate_key() != hostgate.Hostgate.generate_key()
    with pytest.raises(ValueError):
        hostgate.Hostgate.generate_key("no spaces")


def test_mistakes_are_refused_before_anything_is_sent(api_key: str, base_url: str, recorder: Recorder) -> None:
    with hostgate.Hostgate(api_key=api_key, base_url=base_url, http_client=recorder.http) as c:
        with pytest.raises(TypeError, match="idempotency_key"):
            c.destinations.create(url="https://nokey.example.com", idempotency_key="")
        with pytest.raises(TypeError, match="idempotency_key"):
            c.domains.delete("dom_x", idempotency_key=None)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="at most 128"):
            c.destinations.create(url="https://nokey.example.com", idempotency_key="k" * 129)
        with pytest.raises(ValueError, match="expected an id"):
            c.domains.get("")
        with pytest.raises(ValueError, match="timeout"):
            c.domains.get("dom_x", timeout=0)
    assert recorder.calls == []
    for bad in ({"api_key": ""}, {"api_key": "hg live"}, {"base_url": "api.example.com"}, {"timeout": -1}, {"max_read_retries": -1}):
        options = {"api_key": api_key, "base_url": base_url, **bad}
        with pytest.raises(ValueError):
            hostgate.Hostgate(**options)  # type: ignore[arg-type]


def test_the_environment_gives_the_key_and_the_url(api_key: str, base_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOSTGATE_API_KEY", api_key)
    monkeypatch.setenv("HOSTGATE_BASE_URL", base_url + "/v1/")
    with hostgate.Hostgate() as c:
        assert c.usage.get().last_response is not None
    monkeypatch.delenv("HOSTGATE_API_KEY")
    with pytest.raises(ValueError, match="HOSTGATE_API_KEY"):
        hostgate.Hostgate()


def test_connection_refused_reads_retried_within_bounds_writes_not(api_key: str, closed_port_url: str, recorder: Recorder) -> None:
    with hostgate.Hostgate(api_key=api_key, base_url=closed_port_url, http_client=recorder.http, max_read_retries=2) as c:
        with pytest.raises(hostgate.APIConnectionError) as read:
            c.domains.get("dom_x")
        assert (read.value.code, read.value.status, read.value.request_id) == ("connection_error", None, None)
        assert recorder.calls == ["GET /v1/domains/dom_x"] * 3
        recorder.clear()
        key = new_key("conn")
        with pytest.raises(hostgate.APIConnectionError) as write:
            c.destinations.create(url="https://x.example.com", idempotency_key=key)
        assert write.value.idempotency_key == key
        assert recorder.calls == ["POST /v1/destinations"]
        recorder.clear()
        with pytest.raises(hostgate.APIConnectionError):
            c.domains.list(max_retries=0).first_page()
        assert recorder.calls == ["GET /v1/domains"]


def test_a_peer_that_never_answers_times_out_once(api_key: str, silent_server: str, recorder: Recorder) -> None:
    with hostgate.Hostgate(api_key=api_key, base_url=silent_server, http_client=recorder.http, timeout=0.3) as c:
        started = time.monotonic()
        with pytest.raises(hostgate.APITimeoutError) as timed_out:
            c.domains.list().first_page()
        elapsed = time.monotonic() - started
        assert (timed_out.value.code, timed_out.value.status) == ("timeout", None)
        assert isinstance(timed_out.value, hostgate.APIConnectionError)
        assert 0.28 <= elapsed < 3
        assert len(recorder.calls) == 1  # a timed-out call is not repeated: the caller chose that budget
    # The per-call timeout overrides the client's.
    with hostgate.Hostgate(api_key=api_key, base_url=silent_server, timeout=60) as slow:
        started = time.monotonic()
        with pytest.raises(hostgate.APITimeoutError):
            slow.domains.get("dom_x", timeout=0.2)
        assert time.monotonic() - started < 3
    # A write times out too, not retried, with its key to retry with.
    with hostgate.Hostgate(api_key=api_key, base_url=silent_server, timeout=0.2) as c:
        key = new_key("timeout")
        with pytest.raises(hostgate.APITimeoutError) as write:
            c.destinations.create(url="https://t.example.com", idempotency_key=key)
        assert write.value.idempotency_key == key
