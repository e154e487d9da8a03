"""The bundle format shared by server and CLI: canonical bytes, digest, signature checks."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from hookgate.bundle_format import BundleError, canonical_bytes, digest, key_id, verify


def make_keys():
    private = Ed25519PrivateKey.generate()
    public = private.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )
    return private, public


def signed(private, public, revision=3, policies=None, data=None) -> dict:
    policies = {"a.rego": "package hookgate.a\n# é\n"} if policies is None else policies
    data = {"hookgate": {"branches": ["main"]}} if data is None else data
    d = digest(revision, policies, data)
    return {
        "revision": revision,
        "created_at": "2026-12-02T10:00:00Z",
        "policies": policies,
        "data": data,
        "digest": d,
        "signature": base64.b64encode(private.sign(d.encode("ascii"))).decode(),
        "key_id": key_id(public),
    }


def test_canonical_bytes_are_sorted_compact_utf8():
    raw = canonical_bytes(2, {"b": "x", "a": "é"}, {"z": 1, "y": [1, 2]})
    assert raw == '{"data":{"y":[1,2],"z":1},"policies":{"a":"é","b":"x"},"revision":2}'.encode()
    assert digest(2, {"b": "x", "a": "é"}, {"z": 1, "y": [1, 2]}) == (
        "sha256:" + hashlib.sha256(raw).hexdigest()
    )


def test_a_good_bundle_verifies_after_a_json_round_trip():
    private, public = make_keys()
    bundle = json.loads(json.dumps(signed(private, public)))
    verify(bundle, base64.b64encode(public).decode())


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda b: b["policies"].update({"a.rego": "package hookgate.evil\n"}), "digest"),
        (lambda b: b["data"].update({"hookgate": {}}), "digest"),
        (lambda b: b.update(revision=4), "digest"),
        (lambda b: b.update(digest=digest(9, {}, {})), "digest"),  # own digest is never trusted
        (lambda b: b.update(signature=base64.b64encode(b"\0" * 64).decode()), "signature"),
        (lambda b: b.update(signature="%%%"), "signature"),
        (lambda b: b.update(key_id="0" * 16), "key_id"),
        (lambda b: b.pop("signature"), "signature"),
        (lambda b: b.update(policies={"a.rego": 1}), "policies"),
        (lambda b: b.update(revision=True), "revision"),
    ],
)
def test_any_alteration_is_refused_with_its_reason(change, reason):
    private, public = make_keys()
    bundle = signed(private, public)
    change(bundle)
    with pytest.raises(BundleError, match=reason):
        verify(bundle, base64.b64encode(public).decode())


def test_a_bundle_signed_by_another_key_is_refused_even_with_a_matching_key_id():
    private, public = make_keys()
    other_private, _ = make_keys()
    bundle = signed(other_private, public)  # claims the trusted key's id
    with pytest.raises(BundleError, match="signature"):
        verify(bundle, base64.b64encode(public).decode())


def test_a_bad_public_key_is_named():
    private, public = make_keys()
    with pytest.raises(BundleError, match="public key"):
        verify(signed(private, public), "not-base64!")


def test_the_module_imports_no_server_packages():
    code = (
        "import sys, hookgate.bundle_format\n"
        "print(sorted(m for m in ('fastapi', 'pydantic', 'sqlalchemy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
