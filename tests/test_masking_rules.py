"""Masking from gitleaks' rule set plus command-line forms: secrets are masked, everyday
commands are left exactly as they were."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hookgate.masking import MASK, Masker

DATA = Path(__file__).resolve().parent / "data" / "masking"
RULES = Path(__file__).resolve().parent.parent / "service" / "hookgate" / "data"

# (command, the secret that must not survive): one per class of secret.
SECRETS = [
    ("mysql -u root -pS3cr3tPass appdb", "S3cr3tPass"),
    ("mysqldump --host db -u app -p'pa ss' appdb", "pa ss"),
    ("sshpass -p hunter2x ssh deploy@host", "hunter2x"),
    ("docker login -u me -p dckr_pat_abcDEF123456 registry.io", "dckr_pat_abcDEF123456"),
    ("podman login --password hunter22 quay.io", "hunter22"),
    ("curl -u alice:pw123secret https://api.example.com", "pw123secret"),
    ("git clone https://bob:hunter2pw@git.example.com/r.git", "hunter2pw"),
    ("curl 'https://api.example.com/v1/items?token=abc123xyz&x=1'", "abc123xyz"),
    ("curl https://maps.example.com/geo?api_key=k3y9f00&q=paris", "k3y9f00"),
    ("curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc' x", "eyJhbGciOiJIUzI1NiJ9"),
    ("curl -H 'Authorization: s3cr3tvalue' https://x", "s3cr3tvalue"),
    ("export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghij"),
    ("export X_TOKEN=opaque-value-1", "opaque-value-1"),
    ("DB_PASSWORD='a b c' ./migrate", "a b c"),
    ("git push https://oauth2:glpat-xYz1234567890abcdefgh@gitlab.com/g/r.git", "glpat-xYz12"),
    ("echo glpat-abcdefghij1234567890", "glpat-abcdefghij1234567890"),
    (
        "curl -X POST https://hooks.slack.com/services/T01234567/B01234567/abcdefghijklmnopqrstuvwx",
        "abcdefghijklmnopqrstuvwx",
    ),
    ("aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLQ", "AKIAIOSFODNN7EXAMPLQ"),
    (
        "npm config set //registry.npmjs.org/:_authToken npm_abcdefghijklmnopqrstuvwxyz0123456789",
        "npm_abcdefghijklmnop",
    ),
    ("stripe login --api-key sk_live_51HabcdefghijklmnopqrstuVWXYZ", "sk_live_51Habcdefghij"),
]


@pytest.mark.parametrize(("command", "secret"), SECRETS)
def test_secrets_are_masked(command, secret):
    masked = Masker().mask(command)
    assert secret not in masked and MASK in masked


def _everyday() -> list[str]:
    lines = (DATA / "everyday.txt").read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line and not line.startswith("#")]


def test_at_least_200_everyday_commands_are_left_untouched():
    commands = _everyday()
    assert len(commands) >= 200
    masker = Masker()
    assert [c for c in commands if masker.mask(c) != c] == []


def test_a_harmless_query_parameter_is_not_masked():
    url = "curl 'https://example.com/search?q=python&x=1&page=2'"
    assert Masker().mask(url) == url


def test_the_gitleaks_rules_carry_their_licence_and_every_kept_rule_has_keywords():
    data = json.loads((RULES / "gitleaks_rules.json").read_text(encoding="utf-8"))
    assert data["license"].startswith("MIT License")
    assert len(data["rules"]) >= 200
    assert all(rule["keywords"] for rule in data["rules"])
    keywords = set((RULES / "gitleaks_keywords.txt").read_text(encoding="utf-8").splitlines())
    assert keywords == {k for rule in data["rules"] for k in rule["keywords"]}


def test_every_shipped_gitleaks_rule_runs_on_re2_as_it_is():
    import re2

    data = json.loads((RULES / "gitleaks_rules.json").read_text(encoding="utf-8"))
    for rule in data["rules"]:
        assert re2.compile(rule["regex"]).groups >= rule["secret_group"], rule["id"]


def _python_regex(regex: str) -> str:
    """A gitleaks (Go) regex as Python's ``re`` reads it, for generating examples only: Go
    allows ``(?i)`` mid-pattern (a case-sensitive example still matches it) and spells the
    end of text ``\\z``."""
    head = "(?i)" if regex.startswith("(?i)") else ""
    return head + regex[len(head) :].replace("(?i)", "").replace("\\z", "\\Z")


def _rules() -> list[dict]:
    return json.loads((RULES / "gitleaks_rules.json").read_text(encoding="utf-8"))["rules"]


@pytest.mark.parametrize("rule", _rules(), ids=lambda rule: rule["id"])
def test_every_gitleaks_rule_masks_an_example_generated_from_its_regex(rule):
    """The rules' own examples are generated from their regexes in gitleaks' Go sources; so are
    these (hypothesis): a match whose secret is long and random enough for the rule (its
    entropy threshold) must not survive masking."""
    import re

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from hookgate.masking import _entropy

    pattern = re.compile(_python_regex(rule["regex"]))
    printable = st.characters(min_codepoint=32, max_codepoint=126)
    checked = []

    @settings(max_examples=10, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck), deadline=None)  # fmt: skip
    @given(st.from_regex(pattern, fullmatch=True, alphabet=printable))
    def masks(example: str) -> None:
        match = pattern.fullmatch(example)
        groups = [g for g in match.groups() if g]
        secret = (
            match.group(rule["secret_group"])
            if rule["secret_group"]
            else (groups[0] if groups and len(groups[0]) >= 8 else match.group(0))
        )
        if not secret or len(secret) < 8 or _entropy(secret) < max(rule["entropy"], 2.5):
            return  # too short or too regular to be a secret gitleaks reports
        if not any(k in example.lower() for k in rule["keywords"]):
            example = f"{rule['keywords'][0]} {example}"  # gitleaks reads text near a keyword
        checked.append(example)
        assert secret not in Masker().mask(example), example

    masks()
    assert checked, "no example long and random enough was generated"
