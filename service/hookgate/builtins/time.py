"""Time builtins (``time.*``), with Go's semantics as OPA has them: instants are integer
nanoseconds since the Unix epoch; ``ns`` arguments may be ``[ns, "zone"]`` (an IANA name,
``UTC``, ``""`` for UTC or ``Local``); layouts are Go reference layouts (``2006-01-02``).
"""

from __future__ import annotations

from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.builtins.types import want_int, want_str
from hookgate.lang.values import type_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_NS = 1_000_000_000
_INT64 = (-(2**63), 2**63 - 1)
_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = (
    "January February March April May June July August September October November December"
).split()
RFC3339_NANO = "2006-01-02T15:04:05.999999999Z07:00"


def _zone(name: str) -> Any:
    import datetime
    import zoneinfo

    if name in ("", "UTC"):
        return datetime.UTC
    if name == "Local":
        return datetime.datetime.now().astimezone().tzinfo
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise BuiltinError(f"unknown time zone {name}") from None


def _instant(name: str, arg: Any, *, allow_layout: bool = False) -> tuple[int, Any, str | None]:
    """(ns, tzinfo, layout) from ``ns`` or ``[ns, zone]`` (or ``[ns, zone, layout]``)."""
    layout = None
    if type(arg) is list:
        if not 1 <= len(arg) <= (3 if allow_layout else 2):
            raise BuiltinError(f"{name}: `ns` must be a number or [number, string]")
        ns = arg[0]
        zone = arg[1] if len(arg) > 1 else ""
        if type(zone) is not str:
            raise BuiltinError(f"{name}: the 2nd element of `ns` must be a string")
        if len(arg) == 3:
            layout = arg[2]
            if type(layout) is not str:
                raise BuiltinError(f"{name}: the 3rd element of `ns` must be a string")
    else:
        ns, zone = arg, ""
    if type(ns) not in (int, float):
        raise BuiltinError(
            f"{name}: `ns` must be a number or [number, string], got {type_name(ns)}"
        )
    return int(ns), _zone(zone), layout


def _datetime(ns: int, tz: Any) -> tuple[Any, int]:
    """A datetime (to the second) in ``tz`` and the nanoseconds within that second."""
    import datetime

    secs, frac = divmod(ns, _NS)
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
    try:
        dt = (epoch + datetime.timedelta(seconds=secs)).astimezone(tz)
    except OverflowError:
        raise BuiltinError("time outside of the supported range") from None
    return dt, frac


def _to_ns(dt: Any, frac: int) -> int:
    import datetime

    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.UTC)
    delta = dt - epoch
    return (delta.days * 86400 + delta.seconds) * _NS + frac


@builtin("time.now_ns", "time", 0)
def now_ns() -> int:
    """The current time in nanoseconds since the Unix epoch."""
    import time

    return time.time_ns()


@builtin("time.date", "time", 1)
def date(ns: Any) -> list[int]:
    """``[year, month, day]`` of an instant."""
    dt, _ = _datetime(*_instant("time.date", ns)[:2])
    return [dt.year, dt.month, dt.day]


@builtin("time.clock", "time", 1)
def clock(ns: Any) -> list[int]:
    """``[hour, minute, second]`` of an instant."""
    dt, _ = _datetime(*_instant("time.clock", ns)[:2])
    return [dt.hour, dt.minute, dt.second]


@builtin("time.weekday", "time", 1)
def weekday(ns: Any) -> str:
    """The day of the week of an instant (``"Monday"`` …)."""
    dt, _ = _datetime(*_instant("time.weekday", ns)[:2])
    return _WEEKDAYS[dt.weekday()]


@builtin("time.add_date", "time", 4)
def add_date(ns: Any, years: Any, months: Any, days: Any) -> Any:
    """The instant ``years``, ``months`` and ``days`` later (normalized as Go's ``AddDate``:
    October 31 + 1 month is December 1); an error outside the int64 nanosecond range."""
    import datetime

    t, tz, _ = _instant("time.add_date", ns)
    y = want_int("time.add_date", 2, years)
    m = want_int("time.add_date", 3, months)
    d = want_int("time.add_date", 4, days)
    dt, frac = _datetime(t, tz)
    month0 = dt.month - 1 + m
    year = dt.year + y + month0 // 12
    month = month0 % 12 + 1
    out_of_range = BuiltinError("time.add_date: time outside of valid range")
    if not 1 <= year <= 9999:
        raise out_of_range
    try:
        ordinal = datetime.date(year, month, 1).toordinal() + dt.day - 1 + d
        day = datetime.date.fromordinal(ordinal)
    except (ValueError, OverflowError):
        raise out_of_range from None
    naive = datetime.datetime(day.year, day.month, day.day, dt.hour, dt.minute, dt.second)
    out = _to_ns(naive.replace(tzinfo=tz), frac)
    if not _INT64[0] <= out <= _INT64[1]:  # OPA's instants are int64 nanoseconds
        raise out_of_range
    return out


@builtin("time.diff", "time", 2)
def diff(ns1: Any, ns2: Any) -> list[int]:
    """``[years, months, days, hours, minutes, seconds]`` between two instants (order does
    not matter)."""
    import datetime

    t1, tz1, _ = _instant("time.diff", ns1)
    t2, _tz2, _ = _instant("time.diff", ns2)
    if t1 > t2:
        t1, t2 = t2, t1
    a, _ = _datetime(t1, tz1)
    b, _ = _datetime(t2, tz1)
    year = b.year - a.year
    month = b.month - a.month
    day = b.day - a.day
    hour = b.hour - a.hour
    minute = b.minute - a.minute
    sec = b.second - a.second
    if sec < 0:
        sec += 60
        minute -= 1
    if minute < 0:
        minute += 60
        hour -= 1
    if hour < 0:
        hour += 24
        day -= 1
    if day < 0:
        first_next = datetime.date(a.year + a.month // 12, a.month % 12 + 1, 1)
        day += (first_next - datetime.date(a.year, a.month, 1)).days
        month -= 1
    if month < 0:
        month += 12
        year -= 1
    return [year, month, day, hour, minute, sec]


@builtin("time.parse_duration_ns", "time", 1)
def parse_duration_ns(s: Any) -> int:
    """The nanoseconds of a Go duration such as ``"1h30m"``, ``"1.5s"``, ``"-2ms"`` (units
    ns, us/µs, ms, s, m, h)."""
    text = want_str("time.parse_duration_ns", 1, s)
    try:
        return _parse_duration(text)
    except ValueError:
        raise BuiltinError(f"time.parse_duration_ns: invalid duration {text!r}") from None


_UNITS = {
    "ns": 1,
    "us": 1000,
    "µs": 1000,
    "μs": 1000,
    "ms": 1_000_000,
    "s": _NS,
    "m": 60 * _NS,
    "h": 3600 * _NS,
}


def _parse_duration(text: str) -> int:
    s = text
    neg = False
    if s[:1] in "+-" and s:
        neg = s[0] == "-"
        s = s[1:]
    if s == "0":
        return 0
    if not s:
        raise ValueError(text)
    total = 0
    while s:
        i = 0
        while i < len(s) and s[i].isdigit():
            i += 1
        whole = s[:i]
        s = s[i:]
        frac = ""
        if s.startswith("."):
            j = 1
            while j < len(s) and s[j].isdigit():
                j += 1
            frac = s[1:j]
            s = s[j:]
        if not whole and not frac:
            raise ValueError(text)
        j = 0
        while j < len(s) and not (s[j].isdigit() or s[j] == "."):
            j += 1
        unit = _UNITS.get(s[:j])
        if unit is None:
            raise ValueError(text)
        s = s[j:]
        # Go: whole*unit + floor(frac*unit), in exact integers.
        total += int(whole or "0") * unit
        if frac:
            total += int(frac) * unit // (10 ** len(frac))
    return -total if neg else total


@builtin("time.parse_rfc3339_ns", "time", 1)
def parse_rfc3339_ns(s: Any) -> int:
    """The instant written in RFC 3339 (``2006-01-02T15:04:05.999999999Z07:00``)."""
    text = want_str("time.parse_rfc3339_ns", 1, s)
    return _parse("time.parse_rfc3339_ns", RFC3339_NANO, text)


@builtin("time.parse_ns", "time", 2)
def parse_ns(layout: Any, value: Any) -> int:
    """The instant ``value`` written in the Go reference ``layout`` (UTC unless it has a
    zone)."""
    fmt = want_str("time.parse_ns", 1, layout)
    return _parse("time.parse_ns", fmt, want_str("time.parse_ns", 2, value))


@builtin("time.format", "time", 1)
def format_(x: Any) -> str:
    """An instant as text: ``ns``, ``[ns, zone]`` or ``[ns, zone, layout]`` (default layout
    RFC 3339 with nanoseconds, trailing zeros trimmed)."""
    ns, tz, layout = _instant("time.format", x, allow_layout=True)
    dt, frac = _datetime(ns, tz)
    layout = _NAMED_LAYOUTS.get(layout, layout) if layout else RFC3339_NANO
    return _format(layout, dt, frac)


# The layout names of Go's time package, which time.format accepts in place of a layout.
_NAMED_LAYOUTS = {
    "ANSIC": "Mon Jan _2 15:04:05 2006",
    "UnixDate": "Mon Jan _2 15:04:05 MST 2006",
    "RubyDate": "Mon Jan 02 15:04:05 -0700 2006",
    "RFC822": "02 Jan 06 15:04 MST",
    "RFC822Z": "02 Jan 06 15:04 -0700",
    "RFC850": "Monday, 02-Jan-06 15:04:05 MST",
    "RFC1123": "Mon, 02 Jan 2006 15:04:05 MST",
    "RFC1123Z": "Mon, 02 Jan 2006 15:04:05 -0700",
    "RFC3339": "2006-01-02T15:04:05Z07:00",
    "RFC3339Nano": RFC3339_NANO,
    "Kitchen": "3:04PM",
    "Stamp": "Jan _2 15:04:05",
    "StampMilli": "Jan _2 15:04:05.000",
    "StampMicro": "Jan _2 15:04:05.000000",
    "StampNano": "Jan _2 15:04:05.000000000",
    "DateTime": "2006-01-02 15:04:05",
    "DateOnly": "2006-01-02",
    "TimeOnly": "15:04:05",
}


# -- Go layouts ------------------------------------------------------------------------------

_TOKENS = (
    "January",
    "Monday",
    "2006",
    "-07:00:00",
    "Z07:00:00",
    "-070000",
    "Z070000",
    "-07:00",
    "Z07:00",
    "-0700",
    "Z0700",
    "Jan",
    "Mon",
    "MST",
    "002",
    "-07",
    "Z07",
    "_2",
    "01",
    "02",
    "03",
    "04",
    "05",
    "06",
    "15",
    "PM",
    "pm",
    "1",
    "2",
    "3",
    "4",
    "5",
)


def _tokens(layout: str) -> list[tuple[str, str]]:
    """The layout as ("lit", text) and ("tok", token) chunks."""
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(layout):
        c = layout[i]
        if c in ".," and i + 1 < len(layout) and layout[i + 1] in "09":
            j = i + 1
            while j < len(layout) and layout[j] == layout[i + 1]:
                j += 1
            if j >= len(layout) or not layout[j].isdigit():
                out.append(("frac", layout[i:j]))
                i = j
                continue
        for tok in _TOKENS:
            if layout.startswith(tok, i):
                out.append(("tok", tok))
                i += len(tok)
                break
        else:
            out.append(("lit", c))
            i += 1
    return out


def _offset_text(dt: Any, tok: str) -> str:
    off = dt.utcoffset()
    secs = int(off.total_seconds()) if off is not None else 0
    if tok.startswith("Z") and secs == 0:
        return "Z"
    sign = "-" if secs < 0 else "+"
    secs = abs(secs)
    hh, mm, ss = secs // 3600, secs // 60 % 60, secs % 60
    body = tok.lstrip("Z-")
    if body == "07":
        return f"{sign}{hh:02d}"
    if body == "0700":
        return f"{sign}{hh:02d}{mm:02d}"
    if body == "07:00":
        return f"{sign}{hh:02d}:{mm:02d}"
    if body == "070000":
        return f"{sign}{hh:02d}{mm:02d}{ss:02d}"
    return f"{sign}{hh:02d}:{mm:02d}:{ss:02d}"


def _format(layout: str, dt: Any, frac: int) -> str:
    out = []
    for kind, tok in _tokens(layout):
        if kind == "lit":
            out.append(tok)
        elif kind == "frac":
            digits = f"{frac:09d}"[: len(tok) - 1]
            if tok[1] == "9":
                digits = digits.rstrip("0")
                out.append(tok[0] + digits if digits else "")
            else:
                out.append(tok[0] + digits)
        else:
            out.append(_format_token(tok, dt))
    return "".join(out)


def _format_token(tok: str, dt: Any) -> str:
    hour12 = dt.hour % 12 or 12
    simple = {
        "January": _MONTHS[dt.month - 1],
        "Jan": _MONTHS[dt.month - 1][:3],
        "Monday": _WEEKDAYS[dt.weekday()],
        "Mon": _WEEKDAYS[dt.weekday()][:3],
        "MST": dt.tzname() or "UTC",
        "2006": f"{dt.year:04d}",
        "06": f"{dt.year % 100:02d}",
        "01": f"{dt.month:02d}",
        "1": str(dt.month),
        "02": f"{dt.day:02d}",
        "2": str(dt.day),
        "_2": f"{dt.day:2d}",
        "002": f"{dt.timetuple().tm_yday:03d}",
        "15": f"{dt.hour:02d}",
        "03": f"{hour12:02d}",
        "3": str(hour12),
        "04": f"{dt.minute:02d}",
        "4": str(dt.minute),
        "05": f"{dt.second:02d}",
        "5": str(dt.second),
        "PM": "PM" if dt.hour >= 12 else "AM",
        "pm": "pm" if dt.hour >= 12 else "am",
    }
    if tok in simple:
        return simple[tok]
    return _offset_text(dt, tok)


_PATTERNS = {
    "January": "(?P<month_name>[A-Za-z]+)",
    "Jan": "(?P<month_abbr>[A-Za-z]{3})",
    "Monday": "[A-Za-z]+",
    "Mon": "[A-Za-z]{3}",
    "MST": "(?P<zone_name>[A-Z]{3,5}|[+-]\\d+)",
    "2006": "(?P<year>\\d{4})",
    "06": "(?P<year2>\\d{2})",
    "01": "(?P<month>\\d{2})",
    "1": "(?P<month>\\d{1,2})",
    "02": "(?P<day>\\d{2})",
    "2": "(?P<day>\\d{1,2})",
    "_2": " ?(?P<day>\\d{1,2})",
    "002": "(?P<yday>\\d{3})",
    "15": "(?P<hour>\\d{1,2})",
    "03": "(?P<hour12>\\d{2})",
    "3": "(?P<hour12>\\d{1,2})",
    "04": "(?P<minute>\\d{2})",
    "4": "(?P<minute>\\d{1,2})",
    "05": "(?P<second>\\d{2})",
    "5": "(?P<second>\\d{1,2})",
    "PM": "(?P<ampm>AM|PM)",
    "pm": "(?P<ampm>am|pm)",
}


def _parse(name: str, layout: str, text: str) -> int:
    import datetime

    import re2  # the text may come from the payload: linear-time matching

    parts = []
    used: set[str] = set()
    for kind, tok in _tokens(layout):
        if kind == "lit":
            parts.append(re2.escape(tok))
        elif kind == "frac":
            parts.append(
                "(?:[.,](?P<frac>\\d+))?"
                if tok[1] == "9"
                else f"[.,](?P<frac>\\d{{{len(tok) - 1}}})"
            )
        elif tok in _PATTERNS:
            pat = _PATTERNS[tok]
            group = pat.split(">")[0][4:] if pat.startswith("(?P<") else None
            if group in used:
                pat = pat.replace(f"?P<{group}>", "?:")
            used.add(group or "")
            parts.append(pat)
        else:
            z = "Z|" if tok.startswith("Z") else ""
            parts.append(f"(?P<offset>{z}[+-]\\d{{2}}(?::?\\d{{2}}(?::?\\d{{2}})?)?)")
        if kind == "tok" and tok in ("05", "5") and ".999" not in layout and ".000" not in layout:
            parts.append("(?:[.,](?P<frac>\\d+))?")
    m = re2.fullmatch("".join(parts), text)
    if m is None:
        raise BuiltinError(f"{name}: cannot parse the value as the layout")
    g = m.groupdict()
    try:
        if g.get("year"):
            year = int(g["year"])
        elif g.get("year2"):
            year = int(g["year2"]) + (1900 if int(g["year2"]) >= 69 else 2000)
        else:
            raise BuiltinError(f"unsupported: {name} with a layout without a year")
        month = int(g["month"]) if g.get("month") else 1
        for key in ("month_name", "month_abbr"):
            if g.get(key):
                names = [mn if key == "month_name" else mn[:3] for mn in _MONTHS]
                month = names.index(g[key].capitalize()) + 1
        day = int(g["day"]) if g.get("day") else 1
        hour = int(g["hour"]) if g.get("hour") else 0
        if g.get("hour12"):
            hour = int(g["hour12"]) % 12 + (12 if (g.get("ampm") or "").upper() == "PM" else 0)
        minute = int(g["minute"]) if g.get("minute") else 0
        second = int(g["second"]) if g.get("second") else 0
        tz: Any = datetime.UTC
        off = g.get("offset")
        if off and off != "Z":
            sign = -1 if off[0] == "-" else 1
            digits = off[1:].replace(":", "")
            secs = int(digits[:2]) * 3600 + int(digits[2:4] or 0) * 60 + int(digits[4:6] or 0)
            tz = datetime.timezone(datetime.timedelta(seconds=sign * secs))
        dt = datetime.datetime(year, month, day, hour, minute, second, tzinfo=tz)
        frac_text = (g.get("frac") or "")[:9]
        frac = int(frac_text.ljust(9, "0")) if frac_text else 0
        if g.get("yday"):
            dt = dt.replace(month=1, day=1) + datetime.timedelta(days=int(g["yday"]) - 1)
    except (ValueError, OverflowError):
        raise BuiltinError(f"{name}: value out of range") from None
    ns = _to_ns(dt, frac)
    if not _INT64[0] <= ns <= _INT64[1]:  # OPA's instants are int64 nanoseconds
        raise BuiltinError(f"{name}: time outside of valid range")
    return ns
