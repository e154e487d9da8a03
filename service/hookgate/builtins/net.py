"""IP networks: ``net.cidr_*`` (``ipaddress``, imported on first use). Offline only:
``net.lookup_ip_addr`` is refused (see docs/reference/builtins.md)."""

from __future__ import annotations

from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.builtins.types import want_str
from hookgate.lang.values import RegoSet

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The most addresses net.cidr_expand lists: a /8 would be sixteen million strings.
MAX_EXPAND = 65536

# OPA's net.cidr_* are Go's net package: an address is 16 bytes (IPv4 in the ::ffff:0:0/96
# block) or 4, a network an address and a 4- or 16-byte mask; IPv4 addresses match IPv4
# networks also when written in that block. The helpers below keep Go's representation so
# that every corner (mapped addresses, bare addresses in cidr_merge) answers as OPA does.
_V4_IN_V6 = bytes(10) + b"\xff\xff"


def _parse_ip(text: str) -> tuple[bytes, bool] | None:
    """Go's ``net.ParseIP``: the 16-byte address and whether it was written as IPv4."""
    import ipaddress

    if "%" in text:  # Go refuses IPv6 zones here; Python would keep them
        return None
    try:
        addr = ipaddress.ip_address(text)
    except ValueError:
        return None
    if addr.version == 4:
        return _V4_IN_V6 + addr.packed, True
    return addr.packed, False


def _to4(ip: bytes) -> bytes | None:
    if len(ip) == 4:
        return ip
    if len(ip) == 16 and ip[:12] == _V4_IN_V6:
        return ip[12:]
    return None


def _cidr_mask(ones: int, bits: int) -> bytes:
    return (((1 << ones) - 1) << (bits - ones)).to_bytes(bits // 8, "big")


def _masked(ip: bytes, mask: bytes) -> bytes:
    """Go's ``IP.Mask``: a 4-byte mask over an IPv4 address gives its 4 bytes."""
    if len(mask) == 16 and len(ip) == 4 and mask[:12] == b"\xff" * 12:
        mask = mask[12:]
    if len(mask) == 4 and len(ip) == 16 and ip[:12] == _V4_IN_V6:
        ip = ip[12:]
    return bytes(a & b for a, b in zip(ip, mask, strict=True))


def _parse_cidr(text: str) -> tuple[bytes, tuple[bytes, bytes]] | None:
    """Go's ``net.ParseCIDR``: (the address as written, the network), or None. A prefix length
    is required, in decimal; a dotted mask, a zone or an IPv4 prefix over 32 is refused."""
    addr, slash, length = text.partition("/")
    if not slash or not length.isascii() or not length.isdigit():
        return None
    parsed = _parse_ip(addr)
    if parsed is None:
        return None
    ip, is4 = parsed
    bits = 32 if is4 else 128
    digits = length.lstrip("0") or "0"  # Go's dtoi takes leading zeros
    if len(digits) > 3 or int(digits) > bits:
        return None
    mask = _cidr_mask(int(digits), bits)
    return ip, (_masked(ip, mask), mask)


def _number_and_mask(net: tuple[bytes, bytes]) -> tuple[bytes, bytes] | None:
    """Go's ``networkNumberAndMask``."""
    ip, mask = net
    ip4 = _to4(ip)
    if ip4 is None:
        if len(ip) != 16:
            return None
        ip4 = ip
    if len(mask) == 4 and len(ip4) != 4:
        return None
    if len(mask) == 16 and len(ip4) == 4:
        mask = mask[12:]
    return ip4, mask


def _contains(net: tuple[bytes, bytes], ip: bytes) -> bool:
    """Go's ``IPNet.Contains``."""
    nm = _number_and_mask(net)
    if nm is None:
        return False
    number, mask = nm
    ip = _to4(ip) or ip
    if len(ip) != len(number):
        return False
    return all(n & m == a & m for n, m, a in zip(number, mask, ip, strict=True))


def _ones(mask: bytes) -> int:
    return bin(int.from_bytes(mask, "big")).count("1")


def _last(net: tuple[bytes, bytes]) -> bytes:
    ip, mask = net
    host = len(mask) * 8 - _ones(mask)
    value = int.from_bytes(ip, "big") | ((1 << host) - 1)
    return value.to_bytes(len(ip), "big")


def _ip_text(ip: bytes) -> str:
    """Go's ``IP.String``: dotted for IPv4 (also in the ::ffff:0:0/96 block), else RFC 5952."""
    import ipaddress

    ip4 = _to4(ip)
    if ip4 is not None:
        return str(ipaddress.IPv4Address(ip4))
    return ipaddress.IPv6Address(ip).compressed


def _net_text(net: tuple[bytes, bytes]) -> str:
    """Go's ``IPNet.String``: the address as stored (not masked again) and the prefix length."""
    nm = _number_and_mask(net)
    if nm is None:
        return "<nil>"
    return f"{_ip_text(nm[0])}/{_ones(nm[1])}"


def _network(name: str, pos: int, x: Any) -> tuple[bytes, bytes]:
    text = want_str(name, pos, x)
    parsed = _parse_cidr(text)
    if parsed is None:
        raise BuiltinError(f"{name}: invalid CIDR address: {text}")
    return parsed[1]


def _contains_text(name: str, cidr: Any, cidr_or_ip: Any) -> bool:
    """OPA's ``builtinNetCIDRContains``: an address, else a network wholly inside."""
    outer = _network(name, 1, cidr)
    text = want_str(name, 2, cidr_or_ip)
    parsed = _parse_ip(text)
    if parsed is not None:
        return _contains(outer, parsed[0])
    inner = _parse_cidr(text)
    if inner is None:
        raise BuiltinError(
            f"{name}: not a valid textual representation of an IP address or CIDR: {text}"
        )
    return _contains(outer, inner[1][0]) and _contains(outer, _last(inner[1]))


@builtin("net.cidr_contains", "net", 2)
def cidr_contains(cidr: Any, cidr_or_ip: Any) -> bool:
    """True if the network ``cidr`` contains the address or the whole network ``cidr_or_ip``."""
    return _contains_text("net.cidr_contains", cidr, cidr_or_ip)


@builtin("net.cidr_intersects", "net", 2)
def cidr_intersects(a: Any, b: Any) -> bool:
    """True if the two networks share an address."""
    x = _network("net.cidr_intersects", 1, a)
    y = _network("net.cidr_intersects", 2, b)
    return _contains(x, y[0]) or _contains(y, x[0])


@builtin("net.cidr_is_valid", "net", 1)
def cidr_is_valid(cidr: Any) -> bool:
    """True if ``cidr`` is a string holding a network in CIDR notation (``10.0.0.0/8``)."""
    return type(cidr) is str and _parse_cidr(cidr) is not None


@builtin("net.cidr_expand", "net", 1)
def cidr_expand(cidr: Any) -> RegoSet:
    """The set of every address of the network ``cidr`` (at most 65,536: a larger network is an
    error rather than gigabytes of strings)."""
    net = _network("net.cidr_expand", 1, cidr)
    if len(net[1]) * 8 - _ones(net[1]) > MAX_EXPAND.bit_length() - 1:
        raise BuiltinError(f"net.cidr_expand: more than {MAX_EXPAND} addresses")
    first = int.from_bytes(net[0], "big")
    last = int.from_bytes(_last(net), "big")
    size = len(net[0])
    return RegoSet(_ip_text(n.to_bytes(size, "big")) for n in range(first, last + 1))


@builtin("net.cidr_merge", "net", 1)
def cidr_merge(addrs: Any) -> RegoSet:
    """The smallest set of networks covering the addresses and networks of the array or set
    ``addrs``, as OPA merges them: a bare IPv4 address stands for its class network (A /8,
    B /16, C /24) written with the address itself; a bare IPv6 address is an error."""
    name = "net.cidr_merge"
    if type(addrs) not in (list, RegoSet):
        raise BuiltinError(f"{name}: operand must be an array")
    ranges = []
    for elem in addrs:
        if type(elem) is not str:
            raise BuiltinError(f"{name}: element must be string")
        ranges.append(_merge_range(name, elem))
    # OPA's mergeCIDRs: sorted by last then first address, merged from the end backwards when
    # one range starts at most one address after the previous one ends. A range merged with
    # nothing keeps its own network and text; a merged one is split into CIDR blocks again.
    ranges.sort(key=lambda r: (r[1], r[0]))
    i = len(ranges) - 1
    while i > 0:
        first, last, _ = ranges[i]
        before = first if first in (_V4_ZERO, 0) else first - 1
        if before <= ranges[i - 1][1]:
            ranges[i - 1] = (min(first, ranges[i - 1][0]), last, None)
            del ranges[i]
        i -= 1
    out = []
    for first, last, net in ranges:
        out += [_net_text(net)] if net is not None else _range_blocks(first, last)
    return RegoSet(out)


_V4_ZERO = int.from_bytes(_V4_IN_V6 + bytes(4), "big")


def _merge_range(name: str, text: str) -> tuple[int, int, tuple[bytes, bytes]]:
    """OPA's ``generateIPNet`` and ``GetAddressRange``: (first, last, network), the addresses
    as 128-bit numbers with IPv4 in the ::ffff:0:0/96 block."""
    parsed = _parse_ip(text)
    if parsed is None:
        cidr = _parse_cidr(text)
        if cidr is None:
            raise BuiltinError(f"{name}: invalid CIDR address: {text}")
        net = cidr[1]
    else:
        ip4 = _to4(parsed[0])
        if ip4 is None:
            raise BuiltinError(f"{name}: IPv6 invalid: needs prefix length")
        ones = 8 if ip4[0] < 0x80 else 16 if ip4[0] < 0xC0 else 24  # Go's IP.DefaultMask
        net = (parsed[0], _cidr_mask(ones, 32))
    first_ip = _masked(net[0], net[1])
    if len(first_ip) == 4:
        first_ip = _V4_IN_V6 + first_ip
    first = int.from_bytes(first_ip, "big")
    host = len(net[1]) * 8 - _ones(net[1])
    return first, first | ((1 << host) - 1), net


def _range_blocks(first: int, last: int) -> list[str]:
    """The fewest CIDR blocks covering ``first``..``last`` (what OPA's ``RangeToCIDRs``
    computes), as Go prints them."""
    out = []
    while first <= last:
        size = (first & -first).bit_length() - 1 if first else 128
        while first + (1 << size) - 1 > last:
            size -= 1
        mask = _cidr_mask(128 - size, 128)
        out.append(_net_text((first.to_bytes(16, "big"), mask)))
        first += 1 << size
    return out


def _match_items(pos: int, x: Any) -> list:
    """(key, text) of each element of an array, set or object of CIDRs: a string, or an
    array whose first element is the string (the rest travels with it)."""
    from hookgate.lang.values import obj_items

    name = "net.cidr_contains_matches"
    t = type(x)
    if t is str:
        items = [(x, x)]
    elif t is list:
        items = list(enumerate(x))
    elif t is RegoSet:
        items = [(e, e) for e in x]
    elif t is dict:
        items = list(obj_items(x))
    else:
        raise BuiltinError(f"{name}: operand {pos} must be string, array, set or object")
    out = []
    for key, elem in items:
        if type(elem) is list and elem:
            elem = elem[0]  # any type: OPA's contains check then names the bad operand
        elif type(elem) is not str:
            raise BuiltinError(f"{name}: operand {pos}: element must be string or non-empty array")
        out.append((key, elem))
    return out


@builtin("net.cidr_contains_matches", "net", 2)
def cidr_contains_matches(cidrs: Any, cidrs_or_ips: Any) -> RegoSet:
    """The set of ``[k1, k2]`` pairs where network ``k1`` of ``cidrs`` contains address or
    network ``k2`` of ``cidrs_or_ips`` (each a string, or an array, set or object of strings
    or of arrays whose first element is the string; keys are indexes, members or keys)."""
    name = "net.cidr_contains_matches"
    outer = _match_items(1, cidrs)
    inner = _match_items(2, cidrs_or_ips)
    return RegoSet([k1, k2] for k1, a in outer for k2, b in inner if _contains_text(name, a, b))
