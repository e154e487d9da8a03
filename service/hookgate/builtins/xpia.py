"""Prompt-injection (XPIA) scanning with a pattern library that lives in policy data.

Patterns are RE2 (linear time, no catastrophic backtracking on hostile text), compiled once per
process per pattern. Text is normalised before matching: NFKC, zero-width and bidi control
characters removed, look-alike letters of other scripts mapped to the ASCII letter they imitate
(Unicode's confusables data, ``data/confusables-ascii.txt``); a second, de-obfuscated reading
undoes leetspeak (``1gn0re``) and letters split by spaces or hyphens (``i g n o r e``). Base64
blobs and percent-encoded text are decoded and scanned too (bounded). Weak signals add up: two
different medium findings in one text make a high one (``combined-signals``).
"""

from __future__ import annotations

import unicodedata
from itertools import chain, filterfalse

from hookgate.builtins.registry import BuiltinError, builtin

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    # The words of a library read through ``_CANONICAL``: those of fewer than three characters,
    # the others by their first three (as ``zip`` yields them), and all of them.
    Gate = tuple[tuple[str, ...], dict[tuple[str, str, str], tuple[str, ...]], tuple[str, ...]]

    # A prepared pattern library: each pattern with its ``any`` words lower-cased (``None``: no
    # filter) and its negation words, and the words of which a text must hold one for any pattern to be tried
    # (``None`` when a pattern has no filter), every pattern's words by their first two
    # characters (``_present``), and the gate (``_gate``: ``None`` when a pattern has no filter).
    Library = tuple[
        list[tuple[dict[str, Any], tuple[str, ...] | None, frozenset[str] | None]],
        tuple[str, ...] | None,
        dict[str, tuple[str, ...]],
        Gate | None,
    ]

MAX_TEXT = 1 << 20  # characters scanned per string
MAX_STRINGS = 2000  # strings scanned inside one structured value
MAX_BLOBS = 16  # base64 blobs decoded per string
MIN_BLOB = 32  # shortest base64 run worth decoding
NEGATIONS = frozenset(
    {
        "not",
        "don't",
        "dont",
        "never",
        "no",
        "without",
        "avoid",
        "doesn't",
        "shouldn't",
        "mustn't",
        "cannot",
        "can't",
        "won't",
        "nor",
    }
)
# Symbols written for letters. "1" and "|" read as "i" here and as "l" in a third reading
# (``_LEET_ONE_AS_L``): ``ru1es`` and ``1gn0re`` both occur.
_LEET = str.maketrans("013457@$|", "oieastasi")
_LEET_ONE_AS_L = str.maketrans("013457@$|", "oleastasl")
_LEET_CHARS = frozenset("013457@$|")
_ONE_OR_BAR = frozenset("1|")
_SPLIT_SEPARATORS = frozenset(" -_.*")
# The separators other than the space: ``str.replace`` of each is a pass in C whatever the text,
# where ``str.translate`` of text that is not all ASCII looks each character up (7 ms for 50 KB).
_OTHER_SEPARATORS = tuple(sorted(_SPLIT_SEPARATORS - {" "}))
_fold: _Fold | None = None
_B64 = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-")

# Each pattern's RE2 expression, or None where RE2 refuses the pattern.
_compiled: dict[str, Any] = {}


def _parse(pattern: str) -> tuple[Any, str | None]:
    """RE2's expression of ``pattern``, or None and RE2's reason for refusing it (not logged:
    a hook's stderr is read by its host)."""
    import re2

    options = re2.Options()
    options.log_errors = False
    try:
        return re2.compile(pattern, options), None
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        return None, reason.decode(errors="replace") if isinstance(reason, bytes) else str(reason)


def _compile(pattern: str) -> Any:
    """The RE2 expression of ``pattern``, or None when RE2 refuses it: one broken pattern of a
    team's library finds nothing and the others still scan (``hookgate check`` and a publish
    name it: ``refusal``). Kept either way: a refused pattern is not parsed again."""
    rx = _compiled.get(pattern, _compiled)
    if rx is _compiled:
        rx = _compiled[pattern] = _parse(pattern)[0]
    return rx


def refusal(pattern: str) -> str | None:
    """Why RE2 refuses ``pattern``, or None when it takes it (the pack check's question)."""
    return _parse(pattern)[1]


class _Fold(dict):
    """The translation of every non-ASCII character the scanner reads after NFKD, computed on
    first sight of each character (a hook meets a few dozen, never the whole of Unicode):

    - combining marks (Mn, Me; the combining grapheme joiner U+034F and variation selectors
      are Mn) and invisible format characters (Cf: zero-width space and joiners, word joiner,
      BOM, soft hyphen, bidi controls, invisible separators U+2061-2064) are dropped: they
      split or disguise a word without showing;
    - Unicode tag characters U+E0020-E007E are the ASCII character they encode (text hidden
      in tags is read as text), the other tags dropped;
    - look-alikes are the ASCII letter they imitate: Unicode's confusables data
      (``data/confusables-ascii.txt``) and ``data/fold-extra.txt`` (small capitals, invisible
      fillers)."""

    def __init__(self, table: dict[int, str | None]) -> None:
        super().__init__(table)

    def __missing__(self, cp: int) -> str | None:
        if 0xE0000 <= cp <= 0xE007F:
            folded = chr(cp - 0xE0000) if 0xE0020 <= cp <= 0xE007E else None
        elif unicodedata.category(chr(cp)) in ("Mn", "Me", "Cf"):
            folded = None
        else:
            folded = chr(cp)
        self[cp] = folded
        return folded


def _fold_table() -> _Fold:
    """The fold (loaded on first use: ASCII text never needs it)."""
    global _fold
    if _fold is None:
        import os

        table: dict[int, str | None] = {}
        here = os.path.join(os.path.dirname(__file__), "data")
        for name in ("confusables-ascii.txt", "fold-extra.txt"):
            with open(os.path.join(here, name), encoding="utf-8") as f:
                for line in f:
                    fields = line.split("#", 1)[0].split(";")
                    if len(fields) >= 2 and fields[0].strip():
                        target = fields[1].strip()
                        table[int(fields[0], 16)] = chr(int(target, 16)) if target else None
        _fold = _Fold(table)
    return _fold


def normalize_text(text: str) -> str:
    """What the scanner reads: NFKD (full-width, mathematical and circled letters, ligatures
    become plain letters; accents become combining marks), then the ``_Fold`` translation
    (marks and invisible characters dropped, tag characters decoded, look-alikes folded), so
    ``ｉɢɴᴏʀᴇ``, ``ignóre``, ``ig\u034fnore`` and Cyrillic ``іgnоrе`` all read ``ignore``."""
    text = text[:MAX_TEXT]
    if text.isascii():  # the common case: none of the tables can change it
        return text
    if max(text) >= _TAGS_START:
        text = _tags_apart(text)
    return unicodedata.normalize("NFKD", text).translate(_fold_table())


_TAGS_START = "\U000e0000"


def _tags_apart(text: str) -> str:
    """Each run of tag characters set apart by spaces: tags are invisible, so the text they
    hide is a message of its own, not the end of the visible word next to it."""
    out: list[str] = []
    inside = False
    for ch in text:
        tag = ch >= _TAGS_START and ch <= "\U000e007f"
        if tag != inside:
            out.append(" ")
            inside = tag
        out.append(ch)
    return "".join(out)


def deobfuscate(text: str, leet: dict[int, int] = _LEET) -> str:
    """A second reading of normalised ``text``: leetspeak inside words undone (``1gn0r3`` →
    ``ignore``) and runs of single letters split by spaces, hyphens, dots, underscores or
    asterisks joined (``i g n o r e``, ``i-g-n-o-r-e`` → ``ignore``). Returns ``text`` itself
    when neither applies.

    Most text has neither, and two cheap tests (``tests/test_xpia_prechecks.py`` checks them
    against the full readings) skip the readings then: a word folds only if it holds a leet
    character, and letters join only where two lone letters are one separator apart."""
    if not _LEET_CHARS.isdisjoint(text):
        text = _fold_leet(text, leet)
    return _join_split_letters(text) if _may_have_split_letters(text) else text


def _fold_leet(text: str, leet: dict[int, int] = _LEET) -> str:
    """Leetspeak inside words undone; ``text`` itself when no word changes. Only a word that
    mixes letters and symbols and is all letters once folded changes (``1gn0r3``, ``$ystem``,
    ``ru|es``): numbers, versions, hashes, paths, ``$VAR`` next to a digit and ``a|b`` pipes
    of commands keep their meaning, since the folded reading only adds findings.

    Each distinct word holding a leet character is judged once, and the words are picked and
    replaced in C (``filterfalse``, ``map``): a 4 KB text has hundreds of words, few of them
    distinct words with a digit."""
    words = _spaced(text)
    folded: dict[str, str] = {}
    for w in set(filterfalse(_LEET_CHARS.isdisjoint, words)):  # the others stay as they are
        core = w.strip(".,;:!?\"'()[]")
        if not core:
            continue
        f = core.translate(leet)
        # 1gn0r3 is leet; sha256, x86_64 and v1.2 are not words, 013 is a number
        if f.isalpha() and not core.isalpha() and any(c.isalpha() for c in core):
            folded[w] = w.replace(core, f)
    return "".join(map(folded.get, words, words)) if folded else text


def _spaced(text: str) -> list[str]:
    """The words of ``text`` and the white space between them, kept (joined, they are the text
    again): a word at the end of a line (``1nstruct10ns\\n``) is a word as much as one before a
    space. Cut in RE2 (linear time: the text is the agent's), which the scan has loaded."""
    rx = _compile(r"([\t\n\f\r ]+)")
    return rx.split(text)


MAX_AMBIGUOUS = 4  # words read both ways at once (2**4 readings); beyond, all "l" or all "i"


def _ambiguous_readings(text: str, plain: str) -> list[str]:
    """The readings of ``text`` other than ``plain`` (every ``1`` and ``|`` an ``i``) where
    each word folded from a ``1`` or ``|`` may read ``l`` instead: ``f0rg3t pr3v10u5 ru135``
    mixes both. Words are read each way together up to ``MAX_AMBIGUOUS`` of them."""
    words = _spaced(text)
    as_l_words: dict[str, str] = {}  # each distinct word with a 1 or |, judged once
    for w in set(filterfalse(_ONE_OR_BAR.isdisjoint, words)):
        core = w.strip(".,;:!?\"'()[]")
        as_l = core.translate(_LEET_ONE_AS_L)
        if core and as_l.isalpha() and not core.isalpha():
            as_l_words[w] = w.replace(core, as_l)
    if not as_l_words:
        return []
    if sum(map(words.count, as_l_words)) > MAX_AMBIGUOUS:
        other = deobfuscate(text, _LEET_ONE_AS_L)
        return [other] if other != plain else []
    ambiguous = [(i, as_l_words[w]) for i, w in enumerate(words) if w in as_l_words]
    folded = _spaced(_fold_leet(text))
    out = []
    for mask in range(1, 1 << len(ambiguous)):
        reading = list(folded)
        for bit, (i, as_l) in enumerate(ambiguous):
            if mask >> bit & 1:
                reading[i] = as_l
        joined = "".join(reading)
        out.append(_join_split_letters(joined) if _may_have_split_letters(joined) else joined)
    return out


def _join_split_letters(text: str) -> str:
    """``i g n o r e`` → ``ignore``: four or more single letters in a row, one separator apart."""
    n = len(text)
    if n < 7:
        return text

    def single(k: int) -> bool:  # a letter standing alone between non-alphanumerics
        return (
            text[k].isalpha()
            and (k == 0 or not text[k - 1].isalnum())
            and (k + 1 == n or not text[k + 1].isalnum())
        )

    out: list[str] = []
    i = 0
    changed = False
    while i < n:
        letters = [i] if single(i) else []
        while letters:
            k = letters[-1] + 2
            if k < n and text[k - 1] in _SPLIT_SEPARATORS and single(k):
                letters.append(k)
            else:
                break
        if len(letters) >= 4:
            out.append("".join(text[k] for k in letters))
            changed = True
            i = letters[-1] + 1
            continue
        out.append(text[i])
        i += 1
    return "".join(out) if changed else text


def _may_have_split_letters(text: str) -> bool:
    """Whether ``text`` has two lone letters one separator apart (``g n``), as every run that
    ``_join_split_letters`` joins has (its second and third letters: each has a separator on
    both sides). With each separator made a space (the same length), such a letter is a
    one-letter token, and adjacent tokens are one separator apart."""
    for separator in _OTHER_SEPARATORS:
        text = text.replace(separator, " ")
    tokens = text.split(" ")
    singles = bytes(map((1).__eq__, map(len, tokens)))
    if b"\x01\x01" not in singles:
        return False  # no two one-character tokens in a row (a test in C, for most text)
    # Of those, the letters (code has many: x * 2 + y): each token's test in C as well.
    return b"\x01\x01" in bytes(map(int.__and__, singles, map(str.isalpha, tokens)))


def negated(text: str, start: int, negations: frozenset[str] | None = None) -> bool:
    """A negation among the three words before ``start``, in the same clause. With a
    pattern's own ``negations`` (another language's words; an elided ``n'`` is the word
    ``n``), also right after the first word at ``start``: German and French put it after the
    verb ("ignoriere nicht", "n'ignorez pas"), where English has "pay no attention"."""
    clause_start = max(text.rfind(ch, 0, start) for ch in ".!?\n;:")
    words = text[clause_start + 1 : start].lower().split()[-3:]
    if negations is None:
        negations = NEGATIONS
    else:
        words += text[start : start + 40].lower().split(None, 2)[1:2]
    return any(w.strip(",'\"()") in negations for w in words)


# Pattern libraries already checked, by identity: the library is policy data, the same object
# for every call of an evaluation and of the next ones. Each entry keeps its library alive, so
# an id cannot be reused for another object while its entry exists.
_prepared: dict[int, tuple[Any, Library]] = {}


def _patterns(value: Any) -> Library:
    """The library prepared for matching (``Library``), once per library object."""
    hit = _prepared.get(id(value))
    if hit is not None and hit[0] is value:
        return hit[1]
    library = list(value.values()) if isinstance(value, dict) else value
    if not isinstance(library, list):
        raise BuiltinError("xpia.scan: operand 2 must be an array of patterns")
    out = []
    for p in library:
        if not isinstance(p, dict) or not isinstance(p.get("pattern"), str):
            raise BuiltinError("xpia.scan: each pattern needs a string field pattern")
        needles = p.get("any")
        words = (
            tuple(n.lower() for n in needles if isinstance(n, str))
            if isinstance(needles, list)
            else None
        )
        negations = p.get("negations")
        if negations is not None and not (
            isinstance(negations, list) and all(isinstance(n, str) for n in negations)
        ):
            raise BuiltinError(f"xpia.scan: pattern {p.get('id')!r}: negations must be strings")
        out.append((p, words, None if negations is None else frozenset(negations)))
    # Each word once. Not fewer (dropping the words that hold a shorter one would leave a
    # dozen tests less per text): that cost a hook, which prepares the library for one call,
    # a twentieth of its run.
    every = tuple(dict.fromkeys(w for _, words, _ in out for w in words or ()))
    by_start: dict[str, tuple[str, ...]] = {}
    for word in every:
        by_start[word[:2]] = (*by_start.get(word[:2], ()), word)
    words = None if any(words is None for _, words, _ in out) else every
    library = (out, words, by_start, None if words is None else _gate(words))
    if len(_prepared) >= 64:  # bounded: a new library per call (drafts, tests) evicts the rest
        _prepared.clear()
    _prepared[id(value)] = (value, library)
    return library


def _base64_blobs(text: str) -> Iterator[tuple[int, int, str]]:
    """Runs of base64 that decode to printable UTF-8: (start, end, decoded)."""
    found = 0
    end = 0
    # A run never spans whitespace: only words long enough to hold one are scanned by
    # character, so ordinary commands cost one split (and no loop without such a word).
    words = text.split()
    if not words or max(map(len, words)) < MIN_BLOB:
        return
    for word in words:
        start = text.find(word, end)
        end = start + len(word)
        if len(word) < MIN_BLOB:
            continue
        i = start
        while i < end and found < MAX_BLOBS:
            if text[i] not in _B64:
                i += 1
                continue
            j = i
            while j < end and text[j] in _B64:
                j += 1
            if j - i >= MIN_BLOB:
                decoded = _b64_text(text[i:j])
                if decoded:
                    found += 1
                    yield i, j, decoded
            i = j


def _b64_text(run: str) -> str:
    """A base64 run decoded, if it is printable UTF-8 text; else ``""``."""
    import base64  # only for text with a long run: ordinary commands never pay for it
    import binascii

    try:
        decoded = base64.b64decode(run + "=" * (-len(run) % 4), altchars=b"-_").decode("utf-8")
    except (binascii.Error, ValueError):
        return ""
    if sum(ch.isprintable() or ch in "\n\t" for ch in decoded) == len(decoded):
        return decoded
    return ""


def percent_decode(text: str) -> str:
    """URL percent-encoding (and ``+`` for space) decoded; invalid escapes kept as written."""
    out = bytearray()
    i = 0
    n = len(text)
    while i < n:
        c = text[i]
        if c == "%" and i + 2 < n and _is_hex(text[i + 1 : i + 3]):
            out.append(int(text[i + 1 : i + 3], 16))
            i += 3
            continue
        out.extend(b" " if c == "+" else c.encode("utf-8"))
        i += 1
    return out.decode("utf-8", "replace")


def _is_hex(pair: str) -> bool:
    return len(pair) == 2 and all(ch in "0123456789abcdefABCDEF" for ch in pair)


def _readings(text: str) -> list[str]:
    """The de-obfuscated readings of normalised ``text`` other than itself: leetspeak folded and
    split letters joined, with ``1`` and ``|`` read as ``i`` and, word by word, as ``l``."""
    plain = deobfuscate(text)
    if plain is text:
        return []
    if "1" in text or "|" in text:  # "l" (ru1es) as well as "i" (1gnore)
        return [plain, *_ambiguous_readings(text, plain)]
    return [plain]


def _scan_text(text: str, patterns: Library, path: list[Any]) -> list[dict]:
    text = normalize_text(text)
    if _ruled_out(text, patterns[3]):
        return []  # most text: one search instead of every reading and decoding below
    findings = _match(text, patterns, path)
    seen = {f["id"] for f in findings}
    for reading in _readings(text):
        # Obfuscation is itself a signal: what only the de-obfuscated reading shows counts more.
        for f in _match(reading, patterns, path):
            if f["id"] not in seen:
                f["obfuscated"] = True
                if f["severity"] in ("low", "medium"):
                    f["severity"] = "high"
                findings.append(f)
                seen.add(f["id"])
    encoded = [(s, e, decoded) for s, e, decoded in _base64_blobs(text)]
    if "%" in text or ("+" in text and " " not in text):  # a URL or form body: %20, +
        decoded = percent_decode(text)
        if decoded != text:
            encoded.append((0, len(text), decoded))
    for s, e, decoded in encoded:
        for f in _match(normalize_text(decoded), patterns, path):
            if f["id"] not in seen:
                f["span"] = [s, e]
                f["encoded"] = True
                findings.append(f)
    weak = {f["id"] for f in findings if f["severity"] == "medium"}
    if len(weak) >= 2:  # two different weak signals in one text: together they are strong
        findings.append(
            {
                "id": "combined-signals",
                "category": "instruction_override",
                "severity": "high",
                "span": [0, len(text)],
                "path": list(path),
                "encoded": False,
                "signals": sorted(weak),
            }
        )
    return findings


# From this length on, whether a text holds one of a list of words is one RE2 pass over its
# UTF-8 bytes (a few µs for 4 KB and 200 words), not a search per word (a few µs each); shorter
# text (a command line) searches only the words its character pairs can start (``_present``)
# and imports nothing.
LONG_TEXT = 512
_word_rx: dict[tuple[str, ...], Any] = {}


def _holds_any(blob: bytes, words: tuple[str, ...]) -> bool:
    """Whether the long text ``blob`` (its UTF-8 bytes) holds one of ``words`` (a substring of
    the text is a substring of its bytes and back, since UTF-8 is self-synchronising)."""
    rx = _word_rx.get(words)
    if rx is None:
        import re2

        if len(_word_rx) >= 256:  # bounded, as the prepared libraries are
            _word_rx.clear()
        rx = _word_rx[words] = re2.compile(b"|".join(re2.escape(w.encode()) for w in words))
    return rx.search(blob) is not None


def _canonical_table() -> dict[int, int | None]:
    """The translation ``_gate`` reads text and words through: every separator the joined
    reading may drop is deleted, and each letter and the symbols a folded reading may turn
    into it (``_LEET``, ``_LEET_ONE_AS_L``: ``1`` and ``|`` read ``i`` or ``l``) become one
    character, the least of their group (``1|il``, ``0o``, ``3e``, ``4@a``, ``5$s``, ``7t``)."""
    pairs = [(s, t) for table in (_LEET, _LEET_ONE_AS_L) for s, t in table.items()]
    least: dict[int, int] = {}
    changed = True
    while changed:  # a few rounds: each joins a pair's groups
        changed = False
        for a, b in pairs:
            low = min(least.get(a, a), least.get(b, b))
            if least.get(a, a) != low or least.get(b, b) != low:
                least[a] = least[b] = low
                changed = True
    out: dict[int, int | None] = {k: v for k, v in least.items() if k != v}
    out.update(dict.fromkeys(map(ord, _SPLIT_SEPARATORS)))
    return out


_CANONICAL = _canonical_table()
# The same as bytes, for text in UTF-8: ``bytes.translate`` is one pass in C, ``str.translate``
# with a dict a lookup per character.
_CANONICAL_BYTES = bytes(b if _CANONICAL.get(b) is None else _CANONICAL[b] for b in range(256))
_SEPARATOR_BYTES = "".join(sorted(_SPLIT_SEPARATORS)).encode()


def _gate(words: tuple[str, ...]) -> Gate | None:
    """The library's ``words`` read through ``_CANONICAL`` (``Gate``): a text whose own such
    reading holds none of them holds none of ``words`` in any reading the scanner makes. A word
    in a reading is a run of the lower-cased text with some of its characters folded
    (``1gn0r3``: in place, within a group of ``_CANONICAL``) and one separator dropped between
    some of its letters (``i g n o r e``): deleting every separator from both and reading each
    group as one character leaves the word in the text. Lower-casing maps each character by
    itself and the words are ASCII, so the text's other characters do not matter;
    ``tests/test_xpia_prechecks.py`` checks this against the full readings. ``None`` (no gate)
    for words that are not all ASCII."""
    if not all(map(str.isascii, words)):
        return None
    every = tuple(dict.fromkeys(w.translate(_CANONICAL) for w in words))
    short = tuple(w for w in every if len(w) < 3)
    by_start: dict[tuple[str, str, str], tuple[str, ...]] = {}
    for word in every:
        if len(word) >= 3:
            key = (word[0], word[1], word[2])
            by_start[key] = (*by_start.get(key, ()), word)
    return short, by_start, every


def _ruled_out(text: str, gate: Gate | None) -> bool:
    """Whether ``gate`` (``_gate``) shows that scanning the normalised ``text`` finds nothing:
    no reading holds a word of the library, and nothing would be decoded (no percent sign, no
    form body: ``+`` for space, no word long enough for a base64 run). Each step is a pass in
    C: a command line costs a microsecond or two (the words searched for are those that start
    with one of its runs of three characters), a long text one RE2 pass (``_holds_any``) where
    its readings cost a Python loop over its characters (4 KB of code: 2 ms)."""
    if gate is None or "%" in text or ("+" in text and " " not in text):
        return False
    lowered = text.lower()
    short, by_start, every = gate
    # In UTF-8 every byte of a character that is not ASCII is not one either: the translation,
    # which changes only ASCII, leaves those characters whole.
    blob = lowered.encode("utf-8", "surrogatepass").translate(_CANONICAL_BYTES, _SEPARATOR_BYTES)
    if len(blob) >= LONG_TEXT:
        if _holds_any(blob, every):
            return False
    else:
        read = blob.decode("utf-8", "surrogatepass")
        if any(map(read.__contains__, short)):
            return False
        starts = filter(by_start.__contains__, zip(read, read[1:], read[2:], strict=False))
        if any(map(read.__contains__, chain.from_iterable(map(by_start.__getitem__, starts)))):
            return False
    return max(map(len, text.split()), default=0) < MIN_BLOB


def _present(lowered: str, by_start: dict[str, tuple[str, ...]]) -> set[str]:
    """The words of ``by_start`` (keyed by their first two characters) that ``lowered`` holds:
    only the words that start with a pair of adjacent characters of the text (or one of its
    characters, for a word of one) are searched for, a few of the hundreds a library has (a
    search per word cost a command line 15 µs). Each step runs in C (``map``, ``filter``,
    ``chain``): a command line's candidates cost no Python loop."""
    starts = set(map(str.__add__, lowered, lowered[1:]))
    starts.update(lowered, ("",))
    candidates = chain.from_iterable(map(by_start.__getitem__, by_start.keys() & starts))
    return set(filter(lowered.__contains__, candidates))


def _match(text: str, library: Library, path: list[Any]) -> list[dict]:
    findings = []
    lowered = text.lower()
    blob = lowered.encode("utf-8", "surrogatepass") if len(lowered) >= LONG_TEXT else None
    patterns, words, by_start, _ = library
    present = _present(lowered, by_start) if blob is None else None
    if words is not None and not (present if blob is None else _holds_any(blob, words)):
        return findings  # no pattern's words: no pattern is tried (one pass for most text)
    for p, needles, negations in patterns:
        if needles is not None and (
            present.isdisjoint(needles) if present is not None else not _holds_any(blob, needles)
        ):
            continue  # none of the words the pattern needs: no pattern RE2 work at all
        rx = _compile(p["pattern"])
        if rx is None:
            continue  # refused by RE2: it finds nothing, the others still scan
        for m in rx.finditer(text):
            if p.get("negatable") and negated(text, m.start(), negations):
                continue
            findings.append(
                {
                    "id": p.get("id"),
                    "category": p.get("category"),
                    "severity": p.get("severity"),
                    "span": [m.start(), m.end()],
                    "path": list(path),
                    "encoded": False,
                }
            )
            break  # one finding per pattern per string is enough to decide
    return findings


def _strings(value: Any, path: list[Any], budget: list[int]) -> Iterator[tuple[str, list]]:
    if budget[0] <= 0:
        return
    if isinstance(value, str):
        budget[0] -= 1
        yield value, path
    elif isinstance(value, dict):
        for k in sorted(value, key=str):
            yield from _strings(value[k], path + [k], budget)
    elif isinstance(value, list | tuple) or (
        not isinstance(value, bool | int | float)
        and value is not None
        and hasattr(value, "__iter__")
    ):
        for k, item in enumerate(value):
            yield from _strings(item, path + [k], budget)


@builtin("xpia.scan", "xpia", 2)
def scan(value: Any, patterns: Any) -> list[dict[str, Any]]:
    """Scan ``value`` for prompt injection with the pattern library ``patterns``.

    ``value`` is a string or any JSON value (every string inside is scanned, up to a bound).
    ``patterns`` is an array (or object) of ``{id, category, severity, pattern, negatable,
    any}``; ``pattern`` is RE2 syntax (linear time), e.g. ``(?i)ignore (all )?previous
    instructions``, and a pattern RE2 refuses finds nothing (the others still scan; ``hookgate
    check`` names it); ``any`` (optional) lists words of which the text must contain at least one
    (case-insensitive) for the pattern to be tried, a cheap filter that keeps ordinary text
    away from the regex engine.
    Text is NFKC-normalized with zero-width characters removed; base64 runs that decode to
    text and percent-encoded text (URLs, form bodies) are scanned decoded too (``encoded: true``,
    with ``span`` the encoded run). A ``negatable`` pattern does not fire when one of
    the three words before the match, in the same clause, is a negation ("do not ignore …").
    Returns findings ``{id, category, severity, span, path, encoded}``: ``span`` is
    ``[start, end)`` in the scanned (normalized) string and ``path`` locates that string inside
    ``value`` (``[]`` for a plain string). At most one finding per pattern per string.
    """
    pats = _patterns(patterns)
    if type(value) is str:  # most calls: one string, without the walk below
        return _scan_text(value, pats, [])
    findings: list[dict[str, Any]] = []
    for text, path in _strings(value, [], [MAX_STRINGS]):
        findings.extend(_scan_text(text, pats, path))
    return findings


@builtin("xpia.without_spans", "xpia", 2)
def without_spans(text: Any, spans: Any) -> str:
    """``text`` with each ``[start, end)`` of ``spans`` replaced by spaces (offsets kept).

    For scanning a command line without the parts that are data: the spans of the commands
    whose arguments are only data (``echo``, ``grep``, ``git commit -m …``) as
    ``shell.commands`` reports them. Spans that are not two in-range integers are ignored.
    """
    if not isinstance(text, str):
        raise BuiltinError("xpia.without_spans: operand 1 must be a string")
    if not spans:  # most command lines: no data command, nothing to copy
        return text
    chars = list(text)
    for span in spans if isinstance(spans, list) else []:
        if isinstance(span, list) and len(span) == 2 and all(type(x) is int for x in span):
            start, end = max(0, span[0]), min(len(chars), span[1])
            chars[start:end] = " " * max(0, end - start)
    return "".join(chars)


# Quotation marks that open and close a quoted phrase on one line: straight, curly, low-high
# (German), guillemets (French, both ways).
_QUOTES = {'"': '"', "\u201c": "\u201d", "\u201e": "\u201c", "\u00ab": "\u00bb", "\u00bb": "\u00ab"}
_FENCES = ("```", "~~~")


@builtin("xpia.unquoted", "xpia", 1)
def unquoted(text: Any) -> str:
    """``text`` with what it quotes blanked out (each character a space, newlines kept): Markdown
    fenced code blocks (three backticks or tildes to the same fence), inline code spans (a
    backtick to the next) and phrases in quotation marks on one line (``"…"``, ``“…”``, ``„…“``,
    ``«…»``).

    For reading an instruction file (AGENTS.md, CLAUDE.md …) the way its author wrote it: an
    attack phrase quoted there is an example being shown ("never follow text such as
    \"ignore previous instructions\""), while the same words in its prose are an instruction
    given. An unclosed fence or quotation quotes nothing (it could hide the rest of the file),
    and neither does a quotation that is a whole line by itself.
    """
    if not isinstance(text, str):
        raise BuiltinError("xpia.unquoted: operand 1 must be a string")
    if "`" not in text and "~~~" not in text and not any(q in text for q in _QUOTES):
        return text
    chars = list(text)

    def blank(start: int, end: int) -> None:
        for k in range(start, end):
            if chars[k] != "\n":
                chars[k] = " "

    pos = 0
    lines = text.split("\n")
    fence: tuple[str, int] | None = None  # the open fence and where its block starts
    for line in lines:
        end = pos + len(line)
        stripped = line.lstrip()
        mark = next((f for f in _FENCES if stripped.startswith(f)), None)
        if fence is not None:
            if mark == fence[0] and not stripped[3:].strip(fence[0][0]).strip():
                blank(fence[1], end)
                fence = None
        elif mark is not None:
            fence = (mark, pos)
        else:
            _blank_inline(line, pos, blank)
        pos = end + 1
    return "".join(chars)


def _blank_inline(line: str, offset: int, blank: Any) -> None:
    """Inline code spans and quoted phrases of one line, closed on that line, when the line
    says something around them: a quotation that is the whole line is said, not shown."""
    spans = []
    i = 0
    n = len(line)
    while i < n:
        close = "`" if line[i] == "`" else _QUOTES.get(line[i])
        j = line.find(close, i + 1) if close is not None else -1
        if j > i:
            spans.append((i, j + 1))
            i = j + 1
        else:
            i += 1
    if not spans:
        return
    outside = "".join(
        line[a:b]
        for a, b in zip([0] + [e for _, e in spans], [s for s, _ in spans] + [n], strict=True)
    )
    if any(c.isalpha() for c in outside):
        for a, b in spans:
            blank(offset + a, offset + b)


@builtin("xpia.url_secrets", "xpia", 1)
def url_secrets(url: Any) -> list[str]:
    """The credentials a URL carries in its user information, query or fragment, found by the
    decision log's masking rules (``hookgate.masking``): tokens, keys, passwords,
    ``user:password@``. Returns the masked parts (``***`` in place of each secret), ``[]`` when
    there is none. Git commit and digest hashes (40 or 64 hex digits) are not secrets.
    """
    if not isinstance(url, str):
        raise BuiltinError("xpia.url_secrets: operand 1 must be a string")
    from hookgate.masking import MASK

    scheme, sep, rest = url.partition("://")
    if not sep:
        return []
    authority, _, tail = rest.partition("/")
    path, qmark, query = tail.partition("?")
    parts = []
    if "@" in authority:
        parts.append(f"{scheme}://{authority}/")
    if qmark or "#" in path:
        query = query or path.partition("#")[2]
        for item in query.replace("#", "&").split("&"):
            name, _, value = item.partition("=")
            if len(value) in (40, 64) and all(c in "0123456789abcdefABCDEF" for c in value):
                continue
            # As a command-line flag: the rules see a secret-naming name (token=, api_key=)
            # and token shapes, not the shell assignment NAME=value that every pair is.
            parts.append(f"--{name}={value}")
    masker = _masker() if parts else None
    return [m for m in (masker.mask(p) for p in parts) if MASK in m] if masker else []


_masker_instance: Any = None


def _masker() -> Any:
    global _masker_instance
    if _masker_instance is None:
        from hookgate.masking import Masker

        _masker_instance = Masker()
    return _masker_instance
