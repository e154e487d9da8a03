"""git's wildmatch(): the patterns of ``includeIf "gitdir:…"``, ``"onbranch:…"`` and
``"hasconfig:remote.*.url:…"`` matched as git's wildmatch.c matches them.
"""

from __future__ import annotations


def wildmatch(pattern: str, text: str, *, pathname: bool = False, casefold: bool = False) -> bool:
    """git's wildmatch(): ``*``, ``?``, ``[...]`` (``!``/``^``, ranges, ``[:class:]``), ``\\``
    escapes; with ``pathname``, ``*`` stops at ``/`` and ``**/`` spans directories."""
    return _dowild(pattern, 0, text, 0, pathname, casefold) == _MATCH


_MATCH, _NOMATCH, _ABORT_ALL, _ABORT_TO_STARSTAR = 0, 1, -1, -2
_CLASSES = {
    "alnum": str.isalnum,
    "alpha": str.isalpha,
    "blank": lambda c: c in " \t",
    "cntrl": lambda c: ord(c) < 32 or ord(c) == 127,
    "digit": str.isdigit,
    "graph": lambda c: 32 < ord(c) < 127,
    "lower": str.islower,
    "print": lambda c: 32 <= ord(c) < 127,
    "punct": lambda c: 32 < ord(c) < 127 and not c.isalnum(),
    "space": lambda c: c in " \t\n\r\v\f",
    "upper": str.isupper,
    "xdigit": lambda c: c in "0123456789abcdefABCDEF",
}


def _dowild(p: str, pi: int, t: str, ti: int, pathname: bool, fold: bool) -> int:
    np, nt = len(p), len(t)
    while pi < np:
        p_ch = p[pi]
        t_ch = t[ti] if ti < nt else ""
        if not t_ch and p_ch != "*":
            return _ABORT_ALL
        if fold:
            t_ch, p_ch = (
                t_ch.lower() if t_ch.isascii() else t_ch,
                p_ch.lower() if p_ch.isascii() else p_ch,
            )
        if p_ch == "\\" or p_ch not in "?*[":
            if p_ch == "\\":
                pi += 1
                p_ch = p[pi] if pi < np else ""  # git compares an escaped char unfolded
            if t_ch != p_ch:
                return _NOMATCH
        elif p_ch == "?":
            if pathname and t_ch == "/":
                return _NOMATCH
        elif p_ch == "*":
            pi += 1
            if pi < np and p[pi] == "*":
                prev = pi - 2
                while pi < np and p[pi] == "*":
                    pi += 1
                rest = p[pi : pi + 2]
                if (prev < 0 or p[prev] == "/") and (pi == np or rest[:1] == "/" or rest == "\\/"):
                    if rest[:1] == "/" and _dowild(p, pi + 1, t, ti, pathname, fold) == _MATCH:
                        return _MATCH
                    match_slash = True
                else:
                    match_slash = False
            else:
                match_slash = not pathname
            if pi == np:
                if not match_slash and "/" in t[ti:]:
                    return _NOMATCH
                return _MATCH
            if not match_slash and p[pi] == "/":
                slash = t.find("/", ti)
                if slash < 0:
                    return _NOMATCH
                ti = slash + 1
                pi += 1
                continue
            while True:
                if ti >= nt:
                    break
                if p[pi] not in "*?[\\":
                    want = p[pi].lower() if fold else p[pi]
                    while ti < nt and (match_slash or t[ti] != "/"):
                        have = t[ti].lower() if fold else t[ti]
                        if have == want:
                            break
                        ti += 1
                    have = (t[ti].lower() if fold else t[ti]) if ti < nt else ""
                    if have != want:
                        if match_slash:
                            return _ABORT_ALL
                        break
                matched = _dowild(p, pi, t, ti, pathname, fold)
                if matched != _NOMATCH:
                    if not match_slash or matched != _ABORT_TO_STARSTAR:
                        return matched
                elif not match_slash and t[ti] == "/":
                    return _ABORT_TO_STARSTAR
                ti += 1
            return _ABORT_ALL
        else:  # "["
            pi += 1
            p_ch = p[pi] if pi < np else ""
            negated = p_ch in "!^" and p_ch != ""
            if negated:
                pi += 1
                p_ch = p[pi] if pi < np else ""
            prev_ch = ""
            matched = False
            while True:
                if not p_ch:
                    return _ABORT_ALL
                if p_ch == "\\":
                    pi += 1
                    p_ch = p[pi] if pi < np else ""
                    if not p_ch:
                        return _ABORT_ALL
                    if t_ch == p_ch:
                        matched = True
                elif p_ch == "-" and prev_ch and pi + 1 < np and p[pi + 1] != "]":
                    pi += 1
                    p_ch = p[pi]
                    if p_ch == "\\":
                        pi += 1
                        p_ch = p[pi] if pi < np else ""
                        if not p_ch:
                            return _ABORT_ALL
                    if prev_ch <= t_ch <= p_ch:
                        matched = True
                    elif fold and t_ch.islower() and prev_ch <= t_ch.upper() <= p_ch:
                        matched = True
                    p_ch = ""
                elif p_ch == "[" and pi + 1 < np and p[pi + 1] == ":":
                    s = pi + 2
                    end = p.find("]", s)
                    if end < 0:
                        return _ABORT_ALL
                    if end - s - 1 < 0 or p[end - 1] != ":":
                        if t_ch == "[":
                            matched = True
                        p_ch = "["
                    else:
                        test = _CLASSES.get(p[s : end - 1])
                        if test is None:
                            return _ABORT_ALL
                        if test(t_ch) or (fold and p[s : end - 1] == "upper" and t_ch.islower()):
                            matched = True
                        pi = end
                        p_ch = ""
                elif t_ch == p_ch:
                    matched = True
                prev_ch = p_ch
                pi += 1
                p_ch = p[pi] if pi < np else ""
                if p_ch == "]":
                    break
            if matched == negated or (pathname and t_ch == "/"):
                return _NOMATCH
        pi += 1
        ti += 1
    return _NOMATCH if ti < nt else _MATCH
