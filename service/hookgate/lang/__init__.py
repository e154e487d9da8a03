"""The policy language: a Rego v1 subset (parse → check → compile → evaluate).

```python
from hookgate.lang import load, PolicySet, UNDEFINED
ps = load({"a.rego": src}, data={...}, cache_dir=None)       # PolicyError on any problem
ps.query("data.hookgate.x.deny", input=doc)                 # a value, or UNDEFINED
ps.query("data.p.q", input=doc, overrides={"git.branch": fn}, prints=out)
```

Values are the interpreter's (``hookgate.lang.values``): None, bool, int/float, str, list, dict
and ``RegoSet``; ``values.to_json`` turns one into plain JSON. The stages: ``parser`` →
``scopes``/``check`` → ``compile`` (with ``codegen``, ``safety``, ``terms``, ``literals``) →
the run-time (``runtime``, ``documents``); ``policies`` loads and queries policy sets (through
the compile cache, ``cache``), ``testing`` runs their ``test_*`` rules.
"""

from hookgate.lang.errors import EvalError, LimitError, PolicyError
from hookgate.lang.policyset import (
    PolicySet,
    keep_loaded,
    load,
    load_files,
    parse_and_check,
    sets_built,
)
from hookgate.lang.values import UNDEFINED

__all__ = [
    "load",
    "load_files",
    "PolicySet",
    "UNDEFINED",
    "PolicyError",
    "EvalError",
    "LimitError",
    "keep_loaded",
    "sets_built",
    "parse_and_check",
]
