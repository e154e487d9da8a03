"""Graphs given as adjacency objects (``{node: [neighbours…]}``): ``graph.reachable``."""

from __future__ import annotations

from hookgate.builtins.registry import builtin
from hookgate.builtins.types import want_collection, want_object
from hookgate.lang.values import RegoSet, freeze, obj_get

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


@builtin("graph.reachable", "graph", 2)
def reachable(graph: Any, initial: Any) -> RegoSet:
    """Every node reachable from the array or set ``initial`` by following ``graph``'s edges
    (each value an array or set of neighbours), the starting nodes included."""
    g = want_object("graph.reachable", 1, graph)
    todo = list(want_collection("graph.reachable", 2, initial))
    seen: set = set()
    found: list = []
    while todo:
        node = todo.pop()
        key = freeze(node)
        if key in seen:
            continue
        seen.add(key)
        found.append(node)
        edges = obj_get(g, node)
        if type(edges) is list or type(edges) is RegoSet:
            todo.extend(edges)
    return RegoSet(found)
