"""Who the client is: the one address every limit counts."""

from __future__ import annotations

import ipaddress

from starlette.requests import HTTPConnection


def client_address(connection: HTTPConnection) -> str:
    """The address the budget and the rate limits count (the proxy's view with --proxy-headers);
    ``connection`` is a request or a WebSocket."""
    return connection.client.host if connection.client else "unknown"


def network_of(address: str) -> str:
    """The network an address counts in for daily tries: an IPv4 address is its own, an IPv6
    address counts with its /64 (one household or phone: the prefix its provider hands out).

    >>> network_of("2001:db8:1:2:aaaa::1"), network_of("203.0.113.9"), network_of("::ffff:203.0.113.9")
    ('2001:db8:1:2::/64', '203.0.113.9', '203.0.113.9')
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address  # not an address (a test client, a Unix socket): counted as itself
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)
