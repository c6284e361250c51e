"""Request middleware: the client's own address behind trusted proxies, and a cap on the size of a body."""
import logging
from functools import lru_cache
from ipaddress import ip_address, ip_network

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import RequestDataTooBig
from django.utils.cache import patch_cache_control

logger = logging.getLogger(__name__)

# when a request last came with X-Forwarded-For while no proxy is trusted (the system check reads it)
FORWARDED_UNTRUSTED_KEY = "client-address:forwarded-untrusted"


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
        self.warned = False

    def __call__(self, request):
        proxies = tuple(settings.TRUSTED_PROXIES)
        if proxies:
            request.META["REMOTE_ADDR"] = forwarded_client(
                request.META.get("REMOTE_ADDR", ""), request.META.get("HTTP_X_FORWARDED_FOR", ""), proxies,
            )
        elif "HTTP_X_FORWARDED_FOR" in request.META and not self.warned:
            self.warned = True
            forwarded_untrusted_seen(request.META.get("REMOTE_ADDR", ""))
        return self.get_response(request)


def forwarded_untrusted_seen(peer: str) -> None:
    """Behind a proxy that is not trusted every client has the proxy's address, so one address's
    login limit locks everybody out: said once a process in the log, and by `manage.py check`."""
    cache.set(FORWARDED_UNTRUSTED_KEY, peer, 30 * 24 * 3600)
    logger.warning(
        "Requests arrive with X-Forwarded-For (from %s) but TRUSTED_PROXIES is empty: every client behind "
        "that proxy counts as one address for the login limits. Set TRUSTED_PROXIES to the proxy's address.", peer,
    )


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


class MemberPagesPrivateMiddleware:
    """A page answered to someone logged in (his name in the navigation, his events, the staff's
    queue) gets `Cache-Control: private`, so that no shared cache (a proxy, a CDN) keeps it for others."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            patch_cache_control(response, private=True)
        return response
