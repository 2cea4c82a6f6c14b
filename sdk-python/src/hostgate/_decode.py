"""JSON → the dataclasses of :mod:`hostgate.models`, checked against their type hints.

One reflective decoder rather than a hand-written ``from_dict`` per class: the field lists live in
one place (the dataclass), so a field added to a model cannot be forgotten by its parser. Rules:

- unknown keys are ignored (a newer API may add fields; an older client keeps working);
- a missing key is an error unless the field has a default (``Domain.bandwidth``, only on GET);
- ``Literal`` fields accept any value of the literal's type, not only the listed ones, so a status
  added to the API later reaches the caller as a string instead of failing the whole call;
- timestamps (RFC 3339, ``Z`` or an offset, any number of fraction digits) become aware datetimes.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from datetime import datetime, timedelta, timezone
from typing import Any, TypeVar

T = TypeVar("T")


class DecodeError(ValueError):
    """The JSON does not have the shape of the model; ``path`` says where (``data.verification.expected[0]``)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path


_TIMESTAMP = re.compile(
    r"^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$"
)


def parse_timestamp(text: str) -> datetime:
    """An RFC 3339 timestamp as an aware datetime (``datetime.fromisoformat`` takes no ``Z`` before 3.11)."""
    m = _TIMESTAMP.match(text)
    if m is None:
        raise ValueError(f"not an RFC 3339 timestamp: {text!r}")
    year, month, day, hour, minute, second = (int(g) for g in m.group(1, 2, 3, 4, 5, 6))
    micro = int((m.group(7) or "0").ljust(6, "0")[:6])
    if m.group(8):
        tz = timezone.utc
    else:
        offset = timedelta(hours=int(m.group(10)), minutes=int(m.group(11)))
        tz = timezone(-offset if m.group(9) == "-" else offset)
    return datetime(year, month, day, hour, minute, second, micro, tzinfo=tz)


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    """The resolved type hints of a model (cached: resolving them is the slow part)."""
    found = _HINTS.get(cls)
    if found is None:
        found = _HINTS[cls] = typing.get_type_hints(cls)
    return found


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def decode(tp: Any, value: object, path: str = "data") -> Any:
    """``value`` (parsed JSON) as an instance of ``tp`` (a type hint), or DecodeError."""
    origin = typing.get_origin(tp)
    if origin is typing.Union or origin is types.UnionType:
        args = typing.get_args(tp)
        if value is None:
            if type(None) in args:
                return None
            raise DecodeError(path, "is null")
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1:
            return decode(rest[0], value, path)
        errors = []
        for a in rest:
            try:
                return decode(a, value, path)
            except DecodeError as e:
                errors.append(str(e))
        raise DecodeError(path, "matches none of " + "; ".join(errors))
    if origin is typing.Literal:
        allowed = {type(a) for a in typing.get_args(tp)}
        # Any value of the literal's type: see the module's docstring.
        for t in allowed:
            if isinstance(value, t) and not (t is int and isinstance(value, bool)):
                return value
        raise DecodeError(path, f"expected {' or '.join(sorted(t.__name__ for t in allowed))}, got {_kind(value)}")
    if origin is list:
        if not isinstance(value, list):
            raise DecodeError(path, f"expected an array, got {_kind(value)}")
        (item,) = typing.get_args(tp)
        return [decode(item, v, f"{path}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            raise DecodeError(path, f"expected an object, got {_kind(value)}")
        return dict(value)
    if tp is Any or tp is object:
        return value
    if tp is datetime:
        if not isinstance(value, str):
            raise DecodeError(path, f"expected a timestamp string, got {_kind(value)}")
        try:
            return parse_timestamp(value)
        except ValueError as e:
            raise DecodeError(path, str(e)) from None
    if tp is bool:
        if not isinstance(value, bool):
            raise DecodeError(path, f"expected a boolean, got {_kind(value)}")
        return value
    if tp is int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise DecodeError(path, f"expected an integer, got {_kind(value)}")
        return value
    if tp is float:
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise DecodeError(path, f"expected a number, got {_kind(value)}")
        return float(value)
    if tp is str:
        if not isinstance(value, str):
            raise DecodeError(path, f"expected a string, got {_kind(value)}")
        return value
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return decode_model(tp, value, path)
    raise TypeError(f"the decoder does not know the type {tp!r} (at {path})")


def decode_model(cls: type[T], value: object, path: str = "data") -> T:
    """``value`` as the dataclass ``cls``: every field from its key, unknown keys ignored."""
    if not isinstance(value, dict):
        raise DecodeError(path, f"expected an object, got {_kind(value)}")
    hints = _hints(cls)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if not f.init:
            continue
        if f.name not in value:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise DecodeError(f"{path}.{f.name}", "is missing")
            continue
        kwargs[f.name] = decode(hints[f.name], value[f.name], f"{path}.{f.name}")
    return cls(**kwargs)


def encode(value: object) -> Any:
    """A model back as JSON-ready data (timestamps as ``…Z`` strings), e.g. to log or store it."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {k: encode(v) for k, v in value.items()}
    if isinstance(value, datetime):
        return value.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return value
