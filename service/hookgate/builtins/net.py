"""IP networks: ``net.cidr_*`` (``ipaddress``, imported on first use). Offline only:
``net.lookup_ip_addr`` is refused (see docs/builtins.md)."""

from __future__ import annotations

from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.builtins.types import want_collection, want_str
from hookgate.lang.values import RegoSet

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The most addresses net.cidr_expand lists: a /8 would be sixteen million strings.
MAX_EXPAND = 65536


def _network(name: str, pos: int, x: Any) -> Any:
    import ipaddress

    text = want_str(name, pos, x)
    try:
        if "/" in text:
            return ipaddress.ip_network(text, strict=False)
        return ipaddress.ip_network(ipaddress.ip_address(text))
    except ValueError:
        raise BuiltinError(f"{name}: invalid CIDR or IP address {text!r}") from None


@builtin("net.cidr_contains", "net", 2)
def cidr_contains(cidr: Any, cidr_or_ip: Any) -> bool:
    """True if the network ``cidr`` contains the address or the whole network ``cidr_or_ip``."""
    outer = _network("net.cidr_contains", 1, cidr)
    inner = _network("net.cidr_contains", 2, cidr_or_ip)
    return outer.version == inner.version and inner.subnet_of(outer)


@builtin("net.cidr_intersects", "net", 2)
def cidr_intersects(a: Any, b: Any) -> bool:
    """True if the two networks share an address."""
    x = _network("net.cidr_intersects", 1, a)
    y = _network("net.cidr_intersects", 2, b)
    return x.version == y.version and x.overlaps(y)


@builtin("net.cidr_is_valid", "net", 1)
def cidr_is_valid(cidr: Any) -> bool:
    """True if ``cidr`` is a string holding a network in CIDR notation (``10.0.0.0/8``)."""
    import ipaddress

    if type(cidr) is not str or "/" not in cidr:
        return False
    try:
        ipaddress.ip_network(cidr, strict=False)
    except ValueError:
        return False
    return True


@builtin("net.cidr_expand", "net", 1)
def cidr_expand(cidr: Any) -> RegoSet:
    """The set of every address of the network ``cidr`` (at most 65,536: a larger network is an
    error rather than gigabytes of strings)."""
    net = _network("net.cidr_expand", 1, cidr)
    if net.num_addresses > MAX_EXPAND:
        raise BuiltinError(f"net.cidr_expand: more than {MAX_EXPAND} addresses")
    return RegoSet(str(a) for a in net)


@builtin("net.cidr_merge", "net", 1)
def cidr_merge(addrs: Any) -> RegoSet:
    """The smallest set of networks covering the addresses and networks of the array or set
    ``addrs`` (IPv4 and IPv6 merged separately)."""
    import ipaddress

    nets = [_network("net.cidr_merge", 1, a) for a in want_collection("net.cidr_merge", 1, addrs)]
    out = []
    for version in (4, 6):
        same = [n for n in nets if n.version == version]
        out += [str(n) for n in ipaddress.collapse_addresses(same)]
    return RegoSet(out)


def _match_items(pos: int, x: Any) -> list:
    """(key, network) of each element of an array, set or object of CIDRs: a string, or an
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
        if type(elem) is list and elem and type(elem[0]) is str:
            elem = elem[0]
        if type(elem) is not str:
            raise BuiltinError(f"{name}: operand {pos}: element must be string or non-empty array")
        out.append((key, _network(name, pos, elem)))
    return out


@builtin("net.cidr_contains_matches", "net", 2)
def cidr_contains_matches(cidrs: Any, cidrs_or_ips: Any) -> RegoSet:
    """The set of ``[k1, k2]`` pairs where network ``k1`` of ``cidrs`` contains address or
    network ``k2`` of ``cidrs_or_ips`` (each a string, or an array, set or object of strings
    or of arrays whose first element is the string; keys are indexes, members or keys)."""
    outer = _match_items(1, cidrs)
    inner = _match_items(2, cidrs_or_ips)
    return RegoSet(
        [k1, k2]
        for k1, n1 in outer
        for k2, n2 in inner
        if n1.version == n2.version and n2.subnet_of(n1)
    )
