"""Request middleware: the client's own address behind trusted proxies, and a cap on the size of a body."""
from functools import lru_cache
from ipaddress import ip_address, ip_network

from django.conf import settings
from django.core.exceptions import RequestDataTooBig


@lru_cache(maxsize=8)
def _networks(proxies: tuple[str, ...]) -> tuple:
    return tuple(ip_network(proxy, strict=False) for proxy in proxies)


def _is_trusted(address: str, networks: tuple) -> bool:
    try:
        parsed = ip_address(address)
    except ValueError:
        return False
    return any(parsed in network for network in networks)


def forwarded_client(peer: str, forwarded_for: str, proxies: tuple[str, ...]) -> str:
    """The client's address: the peer unless it is a trusted proxy, then the nearest X-Forwarded-For
    hop that is not one (read from the right, as each proxy appends whom it heard from). A hop that
    is no address stops the walk at the last proxy trusted."""
    networks = _networks(proxies)
    if not _is_trusted(peer, networks):
        return peer
    for hop in reversed([hop.strip() for hop in forwarded_for.split(",") if hop.strip()]):
        try:
            ip_address(hop)
        except ValueError:
            return peer
        if not _is_trusted(hop, networks):
            return hop
        peer = hop
    return peer


def client_address(request) -> str:
    """The address the login limits count (set by ClientAddressMiddleware)."""
    return request.META.get("REMOTE_ADDR", "")


class ClientAddressMiddleware:
    """Puts the client's own address in REMOTE_ADDR when the request came through a trusted proxy, so
    login limits, throttles and logs count people, not the proxy; a header from anyone else is ignored."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        proxies = tuple(settings.TRUSTED_PROXIES)
        if proxies:
            request.META["REMOTE_ADDR"] = forwarded_client(
                request.META.get("REMOTE_ADDR", ""), request.META.get("HTTP_X_FORWARDED_FOR", ""), proxies,
            )
        return self.get_response(request)


class RequestBodyLimitMiddleware:
    """Refuses (400) a request whose Content-Length exceeds REQUEST_BODY_MAX_SIZE before any of its
    body is read: Django bounds a multipart body's fields but reads its files whatever their size."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0  # Django reads no body then either
        if length > settings.REQUEST_BODY_MAX_SIZE:
            raise RequestDataTooBig(f"Request body of {length} bytes exceeds REQUEST_BODY_MAX_SIZE.")
        return self.get_response(request)
