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
