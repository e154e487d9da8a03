"""Prometheus metrics in the text exposition format (version 0.0.4), written by hand: three
metric families do not justify a dependency. Counts are per server process, as Prometheus
expects when it scrapes each instance.
"""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections import Counter

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"})
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)


def _labels(names: tuple[str, ...], values: tuple[str, ...]) -> str:
    def escape(value: str) -> str:
        return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')

    return "{" + ",".join(f'{n}="{escape(v)}"' for n, v in zip(names, values, strict=True)) + "}"


class Metrics:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: Counter[tuple[str, str, str]] = Counter()
        self._decisions: Counter[tuple[str, str]] = Counter()
        self._buckets = [0] * len(LATENCY_BUCKETS)
        self._latency_sum = 0.0
        self._latency_count = 0

    def request(self, method: str, route: str, status: int) -> None:
        # Labels come from a bounded set, so no client can make the series grow without end.
        method = method if method in _METHODS else "other"
        with self._lock:
            self._requests[(method, route, str(status))] += 1

    def decision(self, outcome: str, source: str, count: int = 1) -> None:
        with self._lock:
            self._decisions[(outcome, source)] += count

    def evaluation(self, seconds: float) -> None:
        # One bucket per observation (``le`` is inclusive, hence bisect_left); render() makes
        # them cumulative, so the hot path does no loop.
        index = bisect_left(LATENCY_BUCKETS, seconds)
        with self._lock:
            if index < len(LATENCY_BUCKETS):
                self._buckets[index] += 1
            self._latency_sum += seconds
            self._latency_count += 1

    def render(self) -> str:
        with self._lock:
            lines = [
                "# HELP hookgate_http_requests_total HTTP requests served, by route and status.",
                "# TYPE hookgate_http_requests_total counter",
            ]
            names = ("method", "route", "status")
            for key, n in sorted(self._requests.items()):
                lines.append(f"hookgate_http_requests_total{_labels(names, key)} {n}")
            lines += [
                "# HELP hookgate_decisions_total Decisions by outcome: dry-runs evaluated here "
                "(source=evaluate) and records uploaded by hooks (source=upload).",
                "# TYPE hookgate_decisions_total counter",
            ]
            for key, n in sorted(self._decisions.items()):
                labels = _labels(("outcome", "source"), key)
                lines.append(f"hookgate_decisions_total{labels} {n}")
            lines += [
                "# HELP hookgate_evaluation_seconds Time to evaluate one payload on the server.",
                "# TYPE hookgate_evaluation_seconds histogram",
            ]
            cumulative = 0
            for bound, n in zip(LATENCY_BUCKETS, self._buckets, strict=True):
                cumulative += n
                lines.append(f'hookgate_evaluation_seconds_bucket{{le="{bound}"}} {cumulative}')
            lines.append(f'hookgate_evaluation_seconds_bucket{{le="+Inf"}} {self._latency_count}')
            lines.append(f"hookgate_evaluation_seconds_sum {self._latency_sum}")
            lines.append(f"hookgate_evaluation_seconds_count {self._latency_count}")
        return "\n".join(lines) + "\n"
