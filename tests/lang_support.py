"""What a compiled policy set runs while answering a query, for the tests of the compiler's
skipping (tests/test_lang_dispatch.py, test_lang_relevance.py, test_lang_glob_some.py)."""

from __future__ import annotations

import sys


def functions_entered(ps, query: str, doc: dict, builtins: bool = False) -> set[str]:
    """The generated functions (and, with ``builtins``, the C functions) entered while ``ps``
    answers ``query`` for the input ``doc``."""
    names: set[str] = set()
    events = ("call", "c_call") if builtins else ("call",)

    def profile(frame, event, arg):
        if event not in events:
            return
        if event == "c_call":
            names.add(getattr(arg, "__name__", None) or frame.f_code.co_name)
        elif builtins or frame.f_code.co_filename == "<hookgate policies>":
            names.add(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        ps.query(query, input=doc)
    finally:
        sys.setprofile(None)
    return names
