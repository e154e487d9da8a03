"""Masking of secrets in command text before it is stored."""

from __future__ import annotations

import pytest

from hookgate.masking import (
    MASK,
    Masker,
    MaskError,
    credential_rules,
    masker_from_env,
    may_hold_secret,
)

SECRETS = [
    ("TOKEN=abc123 git push", "TOKEN=*** git push", "abc123"),
    ('export API_KEY="a b c" && make', "export API_KEY=*** && make", "a b c"),
    ("curl -H 'Authorization: Bearer eyJhbGciOi.x.y' https://h", None, "eyJhbGciOi.x.y"),
    ("echo ghp_abcdefghijklmnopqrstuvwxyz0123456789", "echo ***", "ghp_abcdefghij"),
    ("aws configure set aws_access_key_id AKIAIOSFODNN7EXAMPLE", None, "AKIAIOSFODNN7EXAMPLE"),
    ("deploy --token=s3cr3tvalue", "deploy --token=***", "s3cr3tvalue"),
    ("mysql --password hunter2 -u root", "mysql --password *** -u root", "hunter2"),
    ("git clone https://bob:pa55word@example.com/r.git", None, "pa55word"),
    ("echo 3f786850e387550fdab836ed7e6dc881de23001b", "echo ***", "3f786850e387"),
    ("cat key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "cat key ***", "wJalrXUtnFEMI"),
    ("x sk-proj-abcdefghijklmnopqrstuvwxyz123", "x ***", "sk-proj"),
]


@pytest.mark.parametrize(("text", "expected", "secret"), SECRETS)
def test_secrets_are_masked(text, expected, secret):
    masked = Masker().mask(text)
    assert secret not in masked
    assert MASK in masked
    if expected is not None:
        assert masked == expected


@pytest.mark.parametrize(
    "text",
    [
        "npm test",
        "git commit -m 'fix the parser' --no-verify",
        "ls src/components/navigation/sidebar/menu_items_list",
        "pytest tests/test_server_api.py -k evaluate",
        "git push --force origin main",
    ],
)
def test_ordinary_commands_are_left_alone(text):
    assert Masker().mask(text) == text


def test_every_hookgate_api_token_is_masked_wherever_it_is():
    """hookgate's own tokens, made as the server makes them. The high-entropy rule wants a digit
    too, which about one token in 1,250 lacks: such an agent token in a query string under any
    name reached the access log (tests/test_server_inputs.py, CI of session 24; this one)."""
    import secrets

    from hookgate.server.store import TOKEN_PREFIX

    tokens = [TOKEN_PREFIX + secrets.token_urlsafe(32) for _ in range(300)]
    tokens.append(TOKEN_PREFIX + "aoE-PeAXsdBGHbDdBCHJvYWLey_CWELWKoOV_K_mRcM")  # CI's, unmasked
    masker = Masker()
    for token in tokens:
        for text in (f"?q={token}", f"curl -H 'X-Hookgate: {token}' https://h", token):
            assert may_hold_secret(text)
            assert token[3:] not in masker.mask(text), text
    assert masker.mask("hg_status; hg_ -x hg_log") == "hg_status; hg_ -x hg_log"


def test_none_stays_none():
    assert Masker().mask(None) is None


def test_extra_patterns_from_env_and_arguments(monkeypatch):
    monkeypatch.setenv("HOOKGATE_MASK_PATTERNS", "corp-[0-9]{6}\n")
    masker = masker_from_env([r"pin=(?P<secret>\d+)"])
    assert masker.mask("use corp-123456 with pin=9876") == "use *** with pin=***"


def test_a_bad_pattern_is_named():
    with pytest.raises(MaskError, match=r"\(unclosed"):
        Masker(["(unclosed"])


def test_prefilters_never_hide_a_default_rule_match():
    """The prefilters let the hook skip RE2 for ordinary commands, and a server skip the rules
    a text cannot meet: whenever one says no, none of its rules matches (checked on near-miss
    texts built from the rules' own pieces, UUIDs and random runs among them)."""
    import random
    import uuid

    from hookgate.masking import _needs_run_rules, _needs_word_rules, may_hold_secret

    pieces = ["xoxb-", "ghp_", "github_pat_", "sk-", "AKIA", "AIza", "-----BEGIN RSA PRIVATE "]
    pieces += ["KEY-----", "Bearer ", "token ", "--pass", "x://", "://", "@", ":", "=", " ", "\t"]
    pieces += ["--", "-", "/", "+", "_", ";", "&", "|", "(", "`", ")", "\n", "A_1=", "--watch="]
    pieces += ["9=", "=x", ".", "é", "ghs_", "AROA", "xoxp-", "==", "/home/dev/", ".jsonl"]
    alphabet = "abcdefABCDEF0123456789xyzXYZ_-+/"
    rng = random.Random(7)
    word_rules, run_rules, _ = Masker()._compiled()
    skipped = {"words": 0, "runs": 0, "all": 0}
    for _ in range(6000):
        parts = []
        for _ in range(rng.randint(1, 6)):
            roll = rng.random()
            if roll < 0.45:
                parts.append(rng.choice(pieces))
            elif roll < 0.55:
                parts.append(str(uuid.UUID(int=rng.getrandbits(128))))
            else:
                size = rng.choice((rng.randint(1, 18), rng.randint(28, 40)))
                parts.append("".join(rng.choice(alphabet) for _ in range(size)))
        text = "".join(parts)
        for name, needed, rules in [
            ("words", _needs_word_rules, word_rules),
            ("runs", _needs_run_rules, run_rules),
            ("all", may_hold_secret, word_rules + run_rules),
        ]:
            if not needed(text):
                skipped[name] += 1
                hits = [
                    m.group(0)
                    for r in rules
                    for m in r.pattern.finditer(text)
                    if r.keep is None or r.keep(m.group(0))
                ]
                assert not hits, (name, text, hits)
    assert min(skipped.values()) > 300, skipped  # each check is exercised, not vacuous


def test_uuids_are_identifiers_not_secrets():
    # sessions, transcripts and temp directories are named by UUIDs: replay needs them
    m = Masker()
    path = "/home/u/.claude/projects/-home-u-proj/0b6f4d1e-3c2a-4d5e-9f8a-1b2c3d4e5f60.jsonl"
    assert m.mask(path) == path
    # a random run is still masked, UUID or not around it
    secret = "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5z"
    assert m.mask(f"echo 0b6f4d1e-3c2a-4d5e-9f8a-1b2c3d4e5f60{secret}") == "echo ***"
    assert m.mask(f"echo {secret}") == "echo ***"


CREDENTIAL_FILES = [
    ("machine github.com login alice password s3cr3tNetrc", "s3cr3tNetrc"),
    ("machine api.example.com\n  login bob\n  password hunter2netrc\n", "hunter2netrc"),
    ("default login anonymous password guestNetrcPw", "guestNetrcPw"),
    ("db.example.com:5432:app:alice:pgPassw0rd", "pgPassw0rd"),
    ("*:*:*:postgres:pg\\:with\\:colons", "pg\\:with\\:colons"),
    ("[default]\naws_access_key_id = AKIA0000\naws_secret_access_key = wJalrXUtnFEMIK7MDENG", "wJalrXUtnFEMIK7MDENG"),
    ("[default]\naws_session_token=FwoGZXIvYXdzEJr", "FwoGZXIvYXdzEJr"),
    ("//registry.npmjs.org/:_authToken=npm_abcdefNpmTok", "npm_abcdefNpmTok"),
    ("_auth = dXNlcjpwYXNzd29yZA==\nemail=a@b.c", "dXNlcjpwYXNzd29yZA=="),
    ("[pypi]\nusername = __token__\npassword = pypi-AgEIcHlwaS5vcmc", "pypi-AgEIcHlwaS5vcmc"),
    ("[server]\nrepository: https://x\npassword: PypircPlain", "PypircPlain"),
    ('{"client_id": "1.apps", "client_secret": "d-FL95Q19q7MQmFpd7hHD0Ty", "type": "authorized_user"}', "d-FL95Q19q7MQmFpd7hHD0Ty"),
    ('{"refresh_token": "1//0gLongRefresh", "type": "authorized_user"}', "1//0gLongRefresh"),
    ('{"auths": {"ghcr.io": {"auth": "Ym9iOmRvY2tlcnB3"}}}', "Ym9iOmRvY2tlcnB3"),
    ("users:\n- name: ci\n  user:\n    token: kubeTokenValue123\n", "kubeTokenValue123"),
    ("    client-key-data: LS0tLS1CRUdJTiBSU0Eg\n", "LS0tLS1CRUdJTiBSU0Eg"),
    # .netrc quotes a password holding blanks (curl, GNU inetutils): all of it is the secret.
    ('machine h login u password "two words"\n', " words"),
    ('machine h login u password "esc\\"aped pw"', ' pw"'),
    # GitHub CLI's hosts.yml, ~/.git-credentials, Docker's identity token, Azure CLI's token
    # cache, a gcloud service-account key.
    ("github.com:\n    user: alice\n    oauth_token: hostsYmlTokenValue\n", "hostsYmlTokenValue"),
    ("https://alice:gitCredPw123@github.com\n", "gitCredPw123"),
    ('{"auths": {"https://index.docker.io/v1/": {"identitytoken": "eyJhbGciOiJSUzI1"}}}', "eyJhbGciOiJSUzI1"),
    ('[{"accessToken": "eyJ0eXAiOiJKV1Qi.azure", "refreshToken": "0.AAAAazureRefresh"}]', "0.AAAAazureRefresh"),
    ('{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEv"}', "MIIEv"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "secret"), CREDENTIAL_FILES)
def test_credential_files_are_masked(text, secret):
    masked = Masker().mask(text)
    assert secret not in masked and MASK in masked, masked


@pytest.mark.parametrize("rule", credential_rules(), ids=lambda rule: rule["id"])
def test_each_credential_file_rule_masks_its_examples_and_leaves_the_rest(rule):
    """The data file's own examples, each also through the hook's cheap test: a rule whose
    text lacks every secret word would never run."""
    assert rule["files"] and rule["examples"] and rule["unchanged"]
    for example in rule["examples"]:
        assert may_hold_secret(example["text"]), example
        masked = Masker().mask(example["text"])
        assert example["secret"] not in masked and MASK in masked, masked
    for text in rule["unchanged"]:
        assert Masker().mask(text) == text


def test_a_bad_credential_file_rule_is_named(monkeypatch):
    from hookgate import masking

    bad = [{"id": "broken", "pattern": "(?P<secret>"}]
    monkeypatch.setattr(masking, "credential_rules", lambda: bad)
    with pytest.raises(MaskError, match="data/credential_files.json rule 'broken'"):
        Masker().mask("password=x")


@pytest.mark.parametrize(
    "text",
    [
        "tokens = tokenize(source)",
        "password_field = form.get('password')",
        "at 12:30:45 on 2026-01-01",
        "aws_access_key_id = AKIAEXAMPLEONLYID",
        '{"name": "x", "type": "module"}',
    ],
)
def test_credential_file_rules_leave_code_and_plain_text_alone(text):
    assert Masker().mask(text) == text
