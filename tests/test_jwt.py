"""io.jwt.*: tokens signed here with ``cryptography`` (every algorithm family, PEM and JWK
keys) are verified and decoded as OPA does; OPA's own cases are in tests/data/opa."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa, utils

from hookgate.lang import load
from hookgate.lang.errors import EvalError


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(header: dict, payload: dict, sign) -> str:
    signed = f"{b64(json.dumps(header).encode())}.{b64(json.dumps(payload).encode())}"
    return f"{signed}.{b64(sign(signed.encode()))}"


RSA = rsa.generate_private_key(public_exponent=65537, key_size=2048)
EC256 = ec.generate_private_key(ec.SECP256R1())
EC384 = ec.generate_private_key(ec.SECP384R1())
ED = ed25519.Ed25519PrivateKey.generate()


def pem(key) -> str:
    return (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )


def es(key, digest, size):
    def sign(data: bytes) -> bytes:
        r, s = utils.decode_dss_signature(key.sign(data, ec.ECDSA(digest)))
        return r.to_bytes(size, "big") + s.to_bytes(size, "big")

    return sign


SIGNERS = {
    "HS256": (lambda d: hmac.new(b"secret", d, hashlib.sha256).digest(), "secret"),
    "HS512": (lambda d: hmac.new(b"secret", d, hashlib.sha512).digest(), "secret"),
    "RS256": (lambda d: RSA.sign(d, padding.PKCS1v15(), hashes.SHA256()), pem(RSA)),
    "PS384": (
        lambda d: RSA.sign(d, padding.PSS(padding.MGF1(hashes.SHA384()), 48), hashes.SHA384()),
        pem(RSA),
    ),
    "ES256": (es(EC256, hashes.SHA256(), 32), pem(EC256)),
    "ES384": (es(EC384, hashes.SHA384(), 48), pem(EC384)),
}


def query(expr: str, **data):
    return load({"p.rego": f"package t\n\np := {expr}\n"}, data).query(
        "data.t.p", strict_builtin_errors=True
    )


@pytest.mark.parametrize("alg", sorted(SIGNERS))
def test_verify_each_family(alg):
    sign, key = SIGNERS[alg]
    tok = token({"alg": alg, "typ": "JWT"}, {"sub": "x"}, sign)
    fn = f"io.jwt.verify_{alg.lower()}"
    assert query(f"{fn}(data.tok, data.key)", tok=tok, key=key) is True
    forged = tok[:-4] + ("AAAA" if not tok.endswith("AAAA") else "BBBB")
    assert query(f"{fn}(data.tok, data.key)", tok=forged, key=key) is False
    other = "other" if alg.startswith("HS") else pem(rsa.generate_private_key(65537, 2048))
    assert query(f"{fn}(data.tok, data.key)", tok=tok, key=other) is False


def test_jwk_and_jwk_set_keys():
    n = RSA.public_key().public_numbers()
    jwk = {
        "kty": "RSA",
        "n": b64(n.n.to_bytes(256, "big")),
        "e": b64(n.e.to_bytes(3, "big")),
    }
    tok = token({"alg": "RS256"}, {"a": 1}, SIGNERS["RS256"][0])
    assert query("io.jwt.verify_rs256(data.tok, data.key)", tok=tok, key=json.dumps(jwk))
    other = rsa.generate_private_key(65537, 2048).public_key().public_numbers()
    other_jwk = {**jwk, "n": b64(other.n.to_bytes(256, "big"))}
    keys = json.dumps({"keys": [other_jwk, jwk]})  # any key of the set may verify
    assert query("io.jwt.verify_rs256(data.tok, data.key)", tok=tok, key=keys)
    keys = json.dumps({"keys": [other_jwk]})
    assert query("io.jwt.verify_rs256(data.tok, data.key)", tok=tok, key=keys) is False


NOW = 1_700_000_000


@pytest.mark.parametrize(
    ("payload", "constraints", "valid"),
    [
        ({"iss": "a"}, {"iss": "a"}, True),
        ({"iss": "a"}, {"iss": "b"}, False),
        ({"exp": NOW + 10}, {}, True),
        ({"exp": NOW - 10}, {}, False),
        ({"nbf": NOW + 10}, {}, False),
        ({"aud": "svc"}, {"aud": "svc"}, True),
        ({"aud": ["x", "svc"]}, {"aud": "svc"}, True),
        ({"aud": "svc"}, {}, False),  # a token for an audience needs that audience asked for
        ({}, {"aud": "svc"}, False),
        ({}, {"alg": "RS256"}, False),  # the token is ES256
    ],
)
def test_decode_verify_constraints(payload, constraints, valid):
    tok = token({"alg": "ES256"}, payload, SIGNERS["ES256"][0])
    c = {"cert": SIGNERS["ES256"][1], "time": NOW * 10**9, **constraints}
    got = query("io.jwt.decode_verify(data.tok, data.c)", tok=tok, c=c)
    assert got == ([True, {"alg": "ES256"}, payload] if valid else [False, {}, {}])


def test_decode_verify_eddsa_and_hmac():
    tok = token({"alg": "EdDSA"}, {"k": "v"}, ED.sign)
    c = {"cert": pem(ED)}
    assert query("io.jwt.decode_verify(data.tok, data.c)", tok=tok, c=c)[0] is True
    tok = token({"alg": "HS256"}, {"k": "v"}, SIGNERS["HS256"][0])
    assert query("io.jwt.decode_verify(data.tok, data.c)", tok=tok, c={"secret": "secret"})[0]
    # a public key does not verify an HMAC token (algorithm confusion)
    assert not query("io.jwt.decode_verify(data.tok, data.c)", tok=tok, c=c)[0]


@pytest.mark.parametrize(
    "constraints", [{"cert": "x", "secret": "y"}, {}, {"secret": "s", "bogus": 1}]
)
def test_decode_verify_bad_constraints_are_errors(constraints):
    tok = token({"alg": "HS256"}, {}, SIGNERS["HS256"][0])
    with pytest.raises(EvalError):
        query("io.jwt.decode_verify(data.tok, data.c)", tok=tok, c=constraints)


def test_cryptography_is_not_imported_to_decode():
    import subprocess
    import sys

    code = (
        "import sys\nfrom hookgate.lang import load\n"
        "load({'p.rego': 'package t\\np := io.jwt.decode(input)'}).query('data.t.p', "
        "input='eyJhbGciOiJIUzI1NiJ9.eyJhIjoxfQ.c2ln')\n"
        "print('cryptography' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize(
    "bad",
    [
        "nodots",
        "a.b",  # two sections
        "eyJhbGciOiJIUzI1NiJ9.e30=x.c2ln",  # padding inside a section
        "eyJhbGciOiJIUzI1NiJ9.e30+.c2ln",  # the standard alphabet, not the URL one
        "eyJlbmMiOiJBMjU2R0NNIn0.e30.c2ln",  # a JWE header (enc)
    ],
)
def test_malformed_tokens_are_errors(bad):
    with pytest.raises(EvalError):
        query("io.jwt.decode(data.tok)", tok=bad)
