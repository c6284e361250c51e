"""System checks of the running site: what the requests it has served say about its set-up."""
from django.conf import settings
from django.core.cache import cache
from django.core.checks import Tags, Warning, register

from .middleware import FORWARDED_UNTRUSTED_KEY


@register(Tags.security, deploy=True)
def forwarded_for_without_trusted_proxies(app_configs=None, **kwargs):
    """ratingsite.W001: requests came through a proxy (X-Forwarded-For) while none is trusted."""
    if settings.DEBUG or settings.TRUSTED_PROXIES:
        return []
    peer = cache.get(FORWARDED_UNTRUSTED_KEY)
    if peer is None:
        return []
    return [Warning(
        f"Requests arrive with X-Forwarded-For (from {peer}) but TRUSTED_PROXIES is empty.",
        hint="Every client behind that proxy counts as one address, so the login limits of one address lock "
             "everybody out. Set TRUSTED_PROXIES to the proxy's address or network.",
        id="ratingsite.W001",
    )]
