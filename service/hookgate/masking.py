"""Masking of secrets in command text before anything is stored.

The rules: gitleaks' default configuration (MIT; ``data/gitleaks_rules.json``, converted by
``tools/convert_gitleaks.py``), each run only on text holding one of its keywords, as gitleaks
does; then hookgate's own rules for command lines below. A rule is an RE2 pattern; what it matches is replaced by ``***``, or only its named group
``secret`` when it has one (so ``TOKEN=abc`` keeps ``TOKEN=``). The defaults cover environment
assignments, secret-named flags, bearer/basic credentials, hookgate's own API tokens, GitHub,
AWS, Slack and OpenAI-style tokens, private key blocks, credential files (``data/credential_files.json``: .netrc, .pgpass,
cloud CLIs', package registries', Docker's), and long hex or high-entropy base64 strings. Extra rules come from
``--mask-pattern`` on ``hookgate serve`` or ``$HOOKGATE_MASK_PATTERNS`` (one pattern per line).

RE2 keeps every rule linear-time, so an operator's pattern cannot stall the server. The hook's
decision log masks every command it records, so with only the default rules a cheap test
(``may_hold_secret``) first rules out text no default rule can match, and the rules are compiled
(and ``re2`` imported) only when some text needs them.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

MASK = "***"

_DEFAULT_RULES: tuple[str, ...] = (
    # PEM private keys, whole block.
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
    # Shell assignments of a variable whose name says secret, at the start of a word:
    # export GITLAB_TOKEN=…, DB_PASSWORD="v a l" cmd (NODE_ENV=production is left alone).
    r"(?i)(?:^|[\s;(`])(?:[a-z_][a-z0-9_]*)?(?:token|secret|password|passwd|api_?key|access_?key|private_?key|credential|auth)[a-z0-9_]*=(?P<secret>\"[^\"]*\"|'[^']*'|[^\s;&|)`\"']+)",
    # Flags whose name says secret: --password=x, --token x, -p is not guessed.
    r"(?i)--?[a-z0-9_-]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|credential|auth(?:orization)?(?:[_-]|\b))[a-z0-9_-]*(?:=|\s+)(?P<secret>\"[^\"]*\"|'[^']*'|[^\s\"']+)",
    # URL query parameters that name a secret: ?token=…, &api_key=…, ?X-Amz-Signature=….
    r"(?i)[?&][a-z0-9_.-]*(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|credential|auth|signature)[a-z0-9_.-]*=(?P<secret>[^&#\s\"']+)",
    # HTTP credentials, and any Authorization header's value.
    r"(?i)\b(?:bearer|basic|token)\s+(?P<secret>[A-Za-z0-9._~+/=-]{8,})",
    r"(?i)\bauthorization:\s*(?:[a-z]+\s+)?(?P<secret>[^\s\"']+)",
    # Passwords written into a client's argv: -pPASSWORD (mysql and kin take it attached),
    # sshpass -p PASS, docker/podman/helm login -p PASS, curl -u user:pass.
    r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^;&|\n]*?\s-p(?P<secret>'[^']*'|\"[^\"]*\"|[^\s;&|'\"]+)",
    r"\bsshpass\b[^;&|\n]*?\s-p\s*(?P<secret>[^\s;&|]+)",
    r"\blogin\b[^;&|\n]*?\s-p[=\s]+(?P<secret>[^\s;&|]+)",
    r"(?:^|\s)(?:-u|--user|--proxy-user)[=\s]*['\"]?[^\s:'\"]+:(?P<secret>[^\s'\"]+)",
    # Credentials in URLs: scheme://user:password@host.
    r"[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@]+:(?P<secret>[^\s@/]+)@",
    # hookgate's own API tokens (server.store: "hg_" and 32 random bytes, URL-safe base64). The
    # high-entropy rule wants a digit too, which about one token in 1,250 lacks.
    r"\bhg_[A-Za-z0-9_-]{40,}",
    # GitHub, Slack, OpenAI/Anthropic-style, Google API keys.
    r"\b(?:gh[pousr]|github_pat)_[A-Za-z0-9_]{16,}",
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
    r"\bsk-[A-Za-z0-9_-]{20,}",
    r"\bAIza[0-9A-Za-z_-]{35}",
    # AWS access key ids.
    r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b",
    # Credential files: data/credential_files.json (_credential_rules).
)

# Rules that need only a long run of hex/base64 characters (no secret word, prefix or URL):
# long hex strings (keys, digests used as secrets), then long base64 that looks random (see
# _looks_random). Text whose only trigger is such a run (a UUID in a path) runs just these.
_HEX_RULE = r"\b[0-9a-fA-F]{32,}\b"

_BASE64_CANDIDATE = r"[A-Za-z0-9+/_-]{32,}={0,2}"

# What text must contain for some rule of _DEFAULT_RULES to match it (keep in step with the
# rules): the PEM header or a secret-naming or credential word (secret flags, HTTP credentials;
# lower-cased), "://" (URLs), or a token's fixed prefix. A flag value such as --watch=false, a
# path or an ordinary word needs none of them, so most commands are logged without importing RE2.
_SECRET_WORDS = (
    "-----begin",
    "password",
    "passwd",
    "secret",
    "token",
    "api",
    "access",
    "credential",
    "private",
    "signature",
    "login",
    "sshpass",
    "mysql",
    "mariadb",
    "-u",
    "--user",
    "--proxy-user",
    "auth",
    "bearer",
    "basic",
    "key-data",
)
_TOKEN_PREFIXES = (
    "hg_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "xox",
    "sk-",
    "AIza",
)
_TOKEN_PREFIXES += ("AKIA", "ASIA", "AGPA", "AIDA", "AROA")
_LONG_RUN = 32
# Every ASCII character outside the base64 alphabet (and so outside hex) becomes a space, so
# runs split on it; another table breaks runs of hex.
_RUN_BREAKS = {c: " " for c in range(128) if not chr(c).isalnum() and chr(c) not in "+/_-"}
_HEX_BREAKS = {c: " " for c in range(128) if chr(c) not in "0123456789abcdefABCDEF"}
# _looks_random needs 4.0 bits per character of the base64 rule's match: a run of at least 32
# characters plus at most two "=", which add at most 0.33 bits while weighing the run's own
# entropy by 32/34, so a run under 3.9 bits cannot make it.
_RUN_ENTROPY = 3.9


def may_hold_secret(text: str) -> bool:
    """False only when no default rule can match ``text`` (a necessary condition, checked
    without regular expressions)."""
    return _needs_word_rules(text) or _needs_run_rules(text)


def _needs_word_rules(text: str) -> bool:
    """False only when no rule of _DEFAULT_RULES can match ``text``."""
    if "://" in text or text.count(":") >= 4:  # a URL, or maybe a .pgpass line
        return True
    lowered = text.lower()
    if any(word in lowered for word in _SECRET_WORDS):
        return True
    return any(prefix in text for prefix in _TOKEN_PREFIXES)


def _needs_run_rules(text: str) -> bool:
    """False only when neither the hex rule nor a random-looking base64 run can match
    ``text``. In ASCII text the runs split here are exactly those the rules see, so a long run
    is judged as they judge it (a UUID is neither); in other text every long run counts."""
    exact = text.isascii()
    for word in text.split():
        if len(word) < _LONG_RUN:
            continue
        for run in word.translate(_RUN_BREAKS).split():
            if len(run) < _LONG_RUN:
                continue
            if not exact or any(len(h) >= _LONG_RUN for h in run.translate(_HEX_BREAKS).split()):
                return True
            if _looks_random(run, _RUN_ENTROPY):
                return True
    return False


class _Rule:
    # A plain class: the decision log masks on every hook call, where ``dataclasses`` is too
    # slow to import.
    __slots__ = ("pattern", "keep")

    def __init__(self, pattern: object, keep: Callable[[str], bool] | None = None) -> None:
        self.pattern = pattern  # a compiled re2 pattern
        self.keep = keep  # a match is masked only when keep(match) is true


def _looks_random(text: str, threshold: float = 4.0) -> bool:
    # Paths and identifiers are long too; a secret mixes letters and digits with high entropy.
    # UUIDs name sessions, transcripts and temp directories (never a secret alone: gitleaks'
    # UUID-shaped keys need their service's name nearby), so what is left must be long itself.
    if "-" in text and len(text) >= 36:
        text = _without_uuids(text)
        if len(text.rstrip("=")) < _LONG_RUN:  # the padding is no part of a run
            return False
    chars = set(text)
    if not any(c.isdigit() for c in chars) or not any(c.isalpha() for c in chars):
        return False
    return _entropy(text, chars) >= threshold


_UUID_DASHES = (8, 13, 18, 23)


def _without_uuids(text: str) -> str:
    """``text`` without its canonical UUIDs (8-4-4-4-12 hex digits)."""
    kept: list[str] = []
    start = i = 0
    while i + 36 <= len(text):
        candidate = text[i : i + 36]
        if all(candidate[k] == "-" for k in _UUID_DASHES) and all(
            c in _HEX_DIGITS for c in candidate.replace("-", "")
        ):
            kept.append(text[start:i])
            i = start = i + 36
        else:
            i += 1
    kept.append(text[start:])
    return "".join(kept)


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def _entropy(text: str, chars: set[str] | None = None) -> float:
    """Shannon entropy in bits per character (``chars``: the set of its characters)."""
    import math  # here: the hook's decision log masks every command, and few need this

    n = len(text)
    counts = map(text.count, set(text) if chars is None else chars)
    return -sum(k / n * math.log2(k / n) for k in counts) if text else 0.0


_DATA = __file__.rpartition("/")[0] + "/data/"
_GITLEAKS_KEYWORDS: dict[str, tuple[str, ...]] | None = None
_GITLEAKS_RULES: list[dict] = []
_GITLEAKS_BY_KEYWORD: dict[str, list[int]] | None = None  # keyword → indexes of its rules
_GITLEAKS_COMPILED: dict[str, object] = {}


def _gitleaks_keywords() -> dict[str, tuple[str, ...]]:
    """Every keyword of the gitleaks rules (lower case) by its first two characters: a rule
    runs only on text holding one of its keywords, so text holding none skips them all without
    RE2 or the rule file."""
    global _GITLEAKS_KEYWORDS
    if _GITLEAKS_KEYWORDS is None:
        with open(_DATA + "gitleaks_keywords.txt", encoding="utf-8") as f:
            keywords = [line for line in f.read().split("\n") if line]
        by_start: dict[str, tuple[str, ...]] = {}
        for keyword in keywords:  # every keyword has at least two characters
            by_start[keyword[:2]] = (*by_start.get(keyword[:2], ()), keyword)
        _GITLEAKS_KEYWORDS = by_start
    return _GITLEAKS_KEYWORDS


def _gitleaks_keywords_in(lowered: str) -> set[str]:
    """The gitleaks keywords that occur in ``lowered``: its pairs of characters (one pass in
    C) name the few keywords worth searching for, rather than searching for all 244."""
    by_start = _gitleaks_keywords()
    pairs = set(map(str.__add__, lowered, lowered[1:]))
    return {k for pair in pairs.intersection(by_start) for k in by_start[pair] if k in lowered}


def _load_gitleaks_rules() -> None:
    # Built whole, then published (the by-keyword index last): server threads may race here.
    global _GITLEAKS_RULES, _GITLEAKS_BY_KEYWORD
    from hookgate import jsonio

    with open(_DATA + "gitleaks_rules.json", encoding="utf-8") as f:
        rules = jsonio.loads(f.read())["rules"]
    by_keyword: dict[str, list[int]] = {}
    for i, rule in enumerate(rules):
        for keyword in rule["keywords"]:
            by_keyword.setdefault(keyword, []).append(i)
    _GITLEAKS_RULES = rules
    _GITLEAKS_BY_KEYWORD = by_keyword


def _gitleaks_rules_for(lowered: str) -> list[tuple[dict, object]]:
    """The gitleaks rules whose keywords occur in ``lowered``, compiled (each once), in the
    rule file's order."""
    keywords = _gitleaks_keywords_in(lowered)
    if not keywords:
        return []
    if _GITLEAKS_BY_KEYWORD is None:
        _load_gitleaks_rules()
    rules, by_keyword = _GITLEAKS_RULES, _GITLEAKS_BY_KEYWORD
    found = []
    for i in sorted({i for keyword in keywords for i in by_keyword[keyword]}):
        rule = rules[i]
        pattern = _GITLEAKS_COMPILED.get(rule["id"])
        if pattern is None:
            pattern = _GITLEAKS_COMPILED[rule["id"]] = _compile(rule["regex"])
        found.append((rule, pattern))
    return found


def _gitleaks_spans(text: str, rule: dict, pattern: object) -> list[tuple[int, int]]:
    """Where ``rule`` finds secrets in ``text``: its secret group; without one, as gitleaks
    does, the first group that matched, unless it is too short to be the secret (a repeated
    piece of a URL): then the whole match. With an entropy threshold, only secrets that
    random."""
    threshold = rule["entropy"]
    spans = []
    for match in pattern.finditer(text):
        group = rule["secret_group"]
        if not group:
            found = [g for g in range(1, pattern.groups + 1) if match.group(g)]
            group = found[0] if found and len(match.group(found[0])) >= 8 else 0
        secret = match.group(group)
        if secret and not (threshold and _entropy(secret) < threshold):
            spans.append((match.start(group), match.end(group)))
    return spans


def _masked_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` with every span (overlapping ones merged) replaced by the mask. All rules
    read the original text: one rule's mask must not hide what another rule needs to see."""
    out, at = [], 0
    for start, end in sorted(spans):
        if start < at:  # overlaps the previous span: one mask covers both
            at = max(at, end)
            continue
        out += [text[at:start], MASK]
        at = end
    return "".join(out) + text[at:]


class MaskError(ValueError):
    """A masking pattern that RE2 cannot compile."""


# Masked texts remembered by a Masker: a server masks the same tool names, paths and commands
# in record after record. Texts up to this long; forgotten all at once when full.
_MEMO_CHARS = 512
_MEMO_SIZE = 50_000


class Masker:
    """Replaces secrets in text; built once from the default and the configured rules."""

    def __init__(self, extra_patterns: Iterable[str] = (), *, defaults: bool = True) -> None:
        self._defaults = defaults
        self._extra = tuple(extra_patterns)
        self._rules: tuple[tuple[_Rule, ...], tuple[_Rule, ...], tuple[_Rule, ...]] | None = None
        self._memo: dict[str, str] = {}
        if self._extra:
            self._compiled()  # a bad configured pattern fails here, not at first use

    def _compiled(self) -> tuple[tuple[_Rule, ...], tuple[_Rule, ...], tuple[_Rule, ...]]:
        """``(word rules, run rules, configured rules)``: the defaults split by what text
        needs for them to match (see ``_needs_word_rules`` and ``_needs_run_rules``)."""
        if self._rules is None:
            words: tuple[_Rule, ...] = ()
            runs: tuple[_Rule, ...] = ()
            if self._defaults:
                words = tuple(_Rule(_compile(p)) for p in _DEFAULT_RULES)
                words += tuple(
                    _Rule(_compile(rule["pattern"], f"{CREDENTIAL_FILES} rule {rule['id']!r}"))
                    for rule in credential_rules()
                )
                runs = (
                    _Rule(_compile(_HEX_RULE)),
                    _Rule(_compile(_BASE64_CANDIDATE), _looks_random),
                )
            self._rules = (words, runs, tuple(_Rule(_compile(p)) for p in self._extra))
        return self._rules

    def mask(self, text: str | None) -> str | None:
        if text is None:
            return None
        if len(text) > _MEMO_CHARS:
            return self._mask(text)
        masked = self._memo.get(text)
        if masked is None:
            masked = self._mask(text)
            if len(self._memo) >= _MEMO_SIZE:
                self._memo.clear()
            self._memo[text] = masked
        return masked

    def _mask(self, text: str) -> str:
        if self._defaults:
            spans = [
                span
                for rule, pattern in _gitleaks_rules_for(text.lower())
                for span in _gitleaks_spans(text, rule, pattern)
            ]
            if spans:
                text = _masked_spans(text, spans)
        words = self._defaults and _needs_word_rules(text)
        runs = self._defaults and _needs_run_rules(text)
        if not (words or runs or self._extra):
            return text
        word_rules, run_rules, extra_rules = self._compiled()
        rules = (word_rules if words else ()) + (run_rules if runs else ()) + extra_rules
        for rule in rules:
            text = rule.pattern.sub(lambda m, rule=rule: _replace(m, rule), text)
        return text


def _replace(match: object, rule: _Rule) -> str:
    whole = match.group(0)
    if rule.keep is not None and not rule.keep(whole):
        return whole
    group = rule.pattern.groupindex.get("secret")
    if group is None or match.group(group) is None:
        return MASK
    start = match.start(group) - match.start(0)
    end = match.end(group) - match.start(0)
    return whole[:start] + MASK + whole[end:]


def _compile(pattern: str, where: str = "") -> object:
    import re2

    try:
        return re2.compile(pattern)
    except re2.error as exc:
        raise MaskError(f"{where or 'masking pattern'} {pattern!r}: {exc}") from None


CREDENTIAL_FILES = "data/credential_files.json"


def credential_rules() -> list[dict]:
    """The credential-file rules (``id``, ``files``, ``pattern``, ``examples``, ``unchanged``):
    data a team may extend, read when a text first needs the word rules."""
    from hookgate import jsonio

    with open(_DATA + "credential_files.json", encoding="utf-8") as f:
        return jsonio.loads(f.read())["rules"]


def masker_from_env(extra_patterns: Iterable[str] = ()) -> Masker:
    """The default rules, plus ``$HOOKGATE_MASK_PATTERNS`` (one per line), plus ``extra``."""
    configured = os.environ.get("HOOKGATE_MASK_PATTERNS", "")
    patterns = [line for line in configured.splitlines() if line.strip()]
    return Masker([*patterns, *extra_patterns])
