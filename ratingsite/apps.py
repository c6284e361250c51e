from django.apps import AppConfig


class SiteConfig(AppConfig):
    """The site itself: its system checks and the login limits' receiver, connected at start."""

    name = "ratingsite"
    verbose_name = "Site"

    def ready(self):
        from . import checks, login_limits  # noqa: F401
