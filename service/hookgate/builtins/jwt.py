"""JSON Web Tokens (JWS compact form): ``io.jwt.decode``, ``io.jwt.verify_<alg>`` and
``io.jwt.decode_verify``, as OPA reads them. Signatures are checked with ``cryptography``
(imported on the first verification, never on a warm hook that does not verify a token).
Signing (``io.jwt.encode_sign*``) is not implemented (refused as unsupported).
"""

from __future__ import annotations

from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.builtins.types import want_object, want_str
from hookgate.lang.values import is_number

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_HASHES = {"256": "SHA256", "384": "SHA384", "512": "SHA512"}


def _b64url(part: str) -> bytes:
    import base64
    import binascii

    body = part.rstrip("=")
    bad = next((i for i, c in enumerate(body) if c in "+/="), None)
    if bad is not None:
        # The URL alphabet only (Go's URLEncoding rejects the standard one's characters).
        raise ValueError(f"illegal base64 data at input byte {bad}")
    try:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
    except (binascii.Error, ValueError):
        bad = next(
            (i for i, c in enumerate(part) if not (c.isascii() and (c.isalnum() or c in "-_="))),
            len(part),
        )
        raise ValueError(f"illegal base64 data at input byte {bad}") from None


def _split(name: str, token: Any) -> tuple[str, str, str]:
    text = want_str(name, 1, token)
    if "." not in text:
        raise BuiltinError(f"{name}: encoded JWT had no period separators")
    parts = text.split(".")
    if len(parts) != 3:
        raise BuiltinError(f"{name}: encoded JWT must have 3 sections, found {len(parts)}")
    return parts[0], parts[1], parts[2]


def _json_object(name: str, what: str, raw: bytes) -> Any:
    import json

    try:
        value = json.loads(raw.decode("utf-8"))
    except ValueError as exc:
        raise BuiltinError(f"{name}: JWT {what} had invalid JSON: {exc}") from None
    return value


def _decode(name: str, token: Any) -> tuple[dict, dict, str]:
    """(header, payload, signature as hex); a token whose payload is a token (content type
    JWT) gives the innermost token's, as OPA decodes it."""
    header_b64, payload_b64, sig_b64 = _split(name, token)
    try:
        header = _json_object(name, "header", _b64url(header_b64))
    except ValueError as exc:
        raise BuiltinError(f"{name}: JWT header had invalid encoding: {exc}") from None
    if type(header) is not dict:
        raise BuiltinError(f"{name}: JWT header must be a JSON object")
    if "enc" in header:
        raise BuiltinError(f"{name}: JWT is a JWE object, which is not supported")
    try:
        raw = _b64url(payload_b64)
        signature = _b64url(sig_b64).hex()
    except ValueError as exc:
        raise BuiltinError(f"{name}: JWT payload had invalid encoding: {exc}") from None
    if header.get("cty") == "JWT":
        inner = _json_object(name, "payload", raw)
        if type(inner) is not str:
            raise BuiltinError(f"{name}: JWT payload of content type JWT must be a string")
        return _decode(name, inner)
    payload = _json_object(name, "payload", raw)
    if type(payload) is not dict:
        raise BuiltinError(f"{name}: JWT payload must be a JSON object")
    return header, payload, signature


@builtin("io.jwt.decode", "jwt", 1)
def decode(token: Any) -> list:
    """``[header, payload, signature]`` of a JWS token, without verifying it (the signature
    as hex); a nested token (``cty: JWT``) is decoded through."""
    return list(_decode("io.jwt.decode", token))


# -- keys -------------------------------------------------------------------------------------


def _keys(name: str, material: str) -> list:
    """The public keys a PEM certificate or key, a JWK or a JWK set holds."""
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    text = material.strip()
    if text.startswith("-----BEGIN"):
        try:
            if "CERTIFICATE" in text.split("\n", 1)[0]:
                return [x509.load_pem_x509_certificate(text.encode()).public_key()]
            return [serialization.load_pem_public_key(text.encode())]
        except ValueError as exc:
            raise BuiltinError(f"{name}: failed to parse a PEM key: {exc}") from None
    import json

    try:
        jwk = json.loads(text)
    except ValueError:
        raise BuiltinError(f"{name}: failed to parse a JWK key (set)") from None
    if type(jwk) is dict and type(jwk.get("keys")) is list:
        return [_jwk(name, k) for k in jwk["keys"]]
    return [_jwk(name, jwk)]


def _int(name: str, jwk: dict, field: str) -> int:
    v = jwk.get(field)
    if type(v) is not str:
        raise BuiltinError(f"{name}: JWK field {field} missing")
    try:
        return int.from_bytes(_b64url(v), "big")
    except ValueError as exc:
        raise BuiltinError(f"{name}: JWK field {field}: {exc}") from None


def _jwk(name: str, jwk: Any) -> Any:
    try:
        return _jwk_key(name, jwk)
    except ValueError as exc:  # numbers that make no key (a point off the curve, …)
        raise BuiltinError(f"{name}: invalid JWK: {exc}") from None


def _jwk_key(name: str, jwk: Any) -> Any:
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

    if type(jwk) is not dict:
        raise BuiltinError(f"{name}: a JWK must be an object")
    kty = jwk.get("kty")
    if kty == "RSA":
        return rsa.RSAPublicNumbers(_int(name, jwk, "e"), _int(name, jwk, "n")).public_key()
    if kty == "EC":
        curves = {"P-256": ec.SECP256R1(), "P-384": ec.SECP384R1(), "P-521": ec.SECP521R1()}
        curve = curves.get(jwk.get("crv"))
        if curve is None:
            raise BuiltinError(f"{name}: unsupported JWK curve {jwk.get('crv')!r}")
        numbers = ec.EllipticCurvePublicNumbers(_int(name, jwk, "x"), _int(name, jwk, "y"), curve)
        return numbers.public_key()
    if kty == "OKP" and jwk.get("crv") == "Ed25519":
        return ed25519.Ed25519PublicKey.from_public_bytes(_b64url(jwk.get("x", "")))
    raise BuiltinError(f"{name}: unsupported JWK key type {kty!r}")


def _check(alg: str, key: Any, signed: bytes, sig: bytes) -> bool:
    """Whether ``sig`` is ``alg``'s signature of ``signed`` under the public ``key``."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa, utils

    family, bits = alg[:2], alg[2:]
    try:
        if family == "Ed" and isinstance(key, ed25519.Ed25519PublicKey):
            key.verify(sig, signed)
            return True
        digest = getattr(hashes, _HASHES[bits])()
        if family in ("RS", "PS") and isinstance(key, rsa.RSAPublicKey):
            pad = (
                padding.PKCS1v15()
                if family == "RS"
                else padding.PSS(padding.MGF1(digest), padding.PSS.AUTO)
            )
            key.verify(sig, signed, pad, digest)
            return True
        if family == "ES" and isinstance(key, ec.EllipticCurvePublicKey):
            half = len(sig) // 2
            if len(sig) % 2:
                return False
            r = int.from_bytes(sig[:half], "big")
            s = int.from_bytes(sig[half:], "big")
            key.verify(utils.encode_dss_signature(r, s), signed, ec.ECDSA(digest))
            return True
    except (InvalidSignature, ValueError, KeyError):
        return False
    return False


def _hmac_ok(bits: str, secret: str, signed: bytes, sig: bytes) -> bool:
    import hashlib
    import hmac

    mac = hmac.new(secret.encode(), signed, getattr(hashlib, "sha" + bits)).digest()
    return hmac.compare_digest(mac, sig)


def _signed(name: str, token: Any) -> tuple[Any, bytes, bytes]:
    """The token's own ``alg``, the text its signature covers and the signature (a nested
    token's outer layer: the one signed)."""
    header_b64, payload_b64, sig_b64 = _split(name, token)
    try:
        header = _json_object(name, "header", _b64url(header_b64))
        sig = _b64url(sig_b64)
    except ValueError as exc:
        raise BuiltinError(f"{name}: JWT had invalid encoding: {exc}") from None
    alg = header.get("alg") if type(header) is dict else None
    return alg, f"{header_b64}.{payload_b64}".encode(), sig


def _signature_ok(name: str, alg: str, material: str, signed: bytes, sig: bytes) -> bool:
    if alg.startswith("HS"):
        return _hmac_ok(alg[2:], material, signed, sig)
    return any(_check(alg, k, signed, sig) for k in _keys(name, material))


def _verify(name: str, alg: str, token: Any, key: Any) -> bool:
    _decode(name, token)  # a malformed token is an error, as in OPA
    _, signed, sig = _signed(name, token)
    return _signature_ok(name, alg, want_str(name, 2, key), signed, sig)


def _register_verify(alg: str) -> None:
    name = f"io.jwt.verify_{alg.lower()}"
    what = "the secret" if alg.startswith("HS") else "a PEM certificate or key, or a JWK (set)"

    def verify(token: Any, key: Any) -> bool:
        return _verify(name, alg, token, key)

    verify.__doc__ = f"True if the token's {alg} signature verifies under {what}."
    builtin(name, "jwt", 2)(verify)


for _alg in ("HS", "RS", "PS", "ES"):
    for _bits in _HASHES:
        _register_verify(_alg + _bits)


# -- decode_verify ------------------------------------------------------------------------------

_CONSTRAINTS = frozenset({"cert", "secret", "alg", "iss", "aud", "time"})
_ALGS = frozenset({f"{f}{b}" for f in ("HS", "RS", "PS", "ES") for b in _HASHES} | {"EdDSA"})


@builtin("io.jwt.decode_verify", "jwt", 2)
def decode_verify(token: Any, constraints: Any) -> list:
    """``[valid, header, payload]``: the token decoded and checked against ``constraints``
    (``cert`` or ``secret``; optional ``alg``, ``iss``, ``aud``, ``time`` in ns, default now):
    signature, ``exp``/``nbf``, issuer and audience; ``[false, {}, {}]`` when any fails."""
    name = "io.jwt.decode_verify"
    c = want_object(name, 2, constraints)
    for k in c:
        if k not in _CONSTRAINTS:
            raise BuiltinError(f"{name}: unknown token validation constraint: {k}")
    cert, secret = c.get("cert"), c.get("secret")
    if (cert is None) == (secret is None):
        raise BuiltinError(f"{name}: exactly one of cert and secret must be given")
    key = cert if cert is not None else secret
    if type(key) is not str:
        raise BuiltinError(f"{name}: the cert or secret constraint must be a string")
    header, payload, _ = _decode(name, token)
    alg, signed, sig = _signed(name, token)
    invalid = [False, {}, {}]
    if alg not in _ALGS or ("alg" in c and c["alg"] != alg):
        return invalid
    if (secret is None) == alg.startswith("HS"):  # a secret for HMAC, a key for the others
        return invalid
    if not _signature_ok(name, alg, key, signed, sig):
        return invalid
    now = c["time"] if "time" in c else _now()
    if not is_number(now):
        raise BuiltinError(f"{name}: the time constraint must be a number")
    for claim in ("exp", "nbf"):
        if claim in payload and not is_number(payload[claim]):
            raise BuiltinError(f"{name}: {claim} value must be a number")
    if "exp" in payload and now >= payload["exp"] * 1_000_000_000:
        return invalid
    if "nbf" in payload and now < payload["nbf"] * 1_000_000_000:
        return invalid
    if "iss" in c and payload.get("iss") != c["iss"]:
        return invalid
    if not _audience_ok(payload.get("aud"), c.get("aud")):
        return invalid
    return [True, header, payload]


def _audience_ok(aud: Any, wanted: Any) -> bool:
    if aud is None:
        return wanted is None
    if wanted is None:
        return False
    return aud == wanted if type(aud) is str else type(aud) is list and wanted in aud


def _now() -> int:
    import time

    return time.time_ns()
