"""Feedback on long work (a download, a replay on the server, a compile): one line on stderr,
rewritten in place with ``\\r``, throttled, and cleared when the work ends.

Only when stderr is a terminal: a pipe or a CI log gets nothing, so what commands print there is
unchanged. ``silence()`` turns it off for the whole process (``pull --background``, started by a
hook, must print nothing). Never imported by the hook's hot path; stdlib only.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO

# Redraws at most this often: a terminal gets a steady line, a fast loop no flood of writes.
INTERVAL = 0.1

_silenced = False


def silence() -> None:
    """No progress from this process from now on."""
    global _silenced
    _silenced = True


def shown(stream: TextIO | None = None) -> bool:
    """Whether progress goes to ``stream`` (default stderr): a terminal, not silenced."""
    stream = sys.stderr if stream is None else stream
    if _silenced or stream is None:
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):  # closed, or a stand-in without isatty
        return False


def size(count: float) -> str:
    """Bytes for a person: ``512 B``, ``3.4 KiB``, ``12.0 MiB``."""
    for unit in ("B", "KiB", "MiB"):
        if count < 1024 or unit == "MiB":
            return f"{count:.0f} {unit}" if unit == "B" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} GiB"  # pragma: no cover (the loop returns at MiB)


class Progress:
    """One task's line. ``advance``/``update`` report work done (of ``total`` when known);
    ``ticking`` redraws the elapsed time from a thread for work that reports nothing while it
    runs (a request the server takes seconds to answer). Use as a context manager: the line is
    cleared on the way out, whatever happened."""

    def __init__(
        self,
        label: str,
        total: float | None = None,
        *,
        unit: str = "",
        ticking: bool = False,
        stream: TextIO | None = None,
    ) -> None:
        self.label = label
        self.total = total
        self.unit = unit
        self.done = 0.0
        self.stream = sys.stderr if stream is None else stream
        self.active = shown(self.stream)
        self._started = time.monotonic()
        self._drawn_at = -INTERVAL
        self._width = 0
        self._ticker = None
        self._stop = None
        self._lock = None
        if self.active:
            import threading

            self._lock = threading.Lock()
            self._draw(force=True)
            if ticking:
                self._stop = threading.Event()
                self._ticker = threading.Thread(target=self._tick, daemon=True)
                self._ticker.start()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def advance(self, amount: float = 1) -> None:
        self.update(self.done + amount)

    def update(self, done: float, total: float | None = None) -> None:
        self.done = done
        if total is not None:
            self.total = total
        if self.active:
            self._draw()

    def close(self) -> None:
        """Stop the ticker and clear the line (the terminal is left as it was found)."""
        if not self.active:
            return
        if self._stop is not None and self._ticker is not None:
            self._stop.set()
            self._ticker.join()
        assert self._lock is not None
        with self._lock:
            self.active = False
            self._write("\r" + " " * self._width + "\r")

    def text(self) -> str:
        """The line as drawn now."""
        elapsed = time.monotonic() - self._started
        parts = [self.label]
        if self.unit == "bytes":
            amount = size(self.done)
            if self.total:
                amount += f" of {size(self.total)} ({100 * self.done / self.total:.0f}%)"
            parts.append(amount)
        elif self.total:
            parts.append(f"{self.done:.0f}/{self.total:.0f}{' ' + self.unit if self.unit else ''}")
        elif self.done:
            parts.append(f"{self.done:.0f}{' ' + self.unit if self.unit else ''}")
        parts.append(f"{elapsed:.0f} s")
        return f"{parts[0]}: {', '.join(parts[1:])}"

    def _tick(self) -> None:
        assert self._stop is not None
        while not self._stop.wait(INTERVAL * 5):
            self._draw(force=True)

    def _draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._drawn_at < INTERVAL:
            return
        assert self._lock is not None
        with self._lock:
            if not self.active:
                return
            self._drawn_at = now
            line = self.text()
            columns = _columns(self.stream)
            if len(line) > columns - 1:  # a wrapped line could not be rewritten with \r
                line = line[: columns - 2] + "…"
            padding = " " * max(0, self._width - len(line))
            self._width = len(line)
            self._write("\r" + line + padding)

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: the work goes on without it
            self.active = False


def _columns(stream: TextIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80
