"""API keys: an optional key, sent in the X-API-Key header, raises a client's rate limit. Only the
key's SHA-256 is stored; the key itself is shown once, when it is issued (`manage.py api_key`)."""
from django.db import models


class ApiKey(models.Model):
    name = models.CharField(max_length=100, help_text="Who the key is for (a club, a program, an analyst).")
    prefix = models.CharField(max_length=8, help_text="The key's first characters: how the staff and its holder tell it apart.")
    digest = models.CharField(max_length=64, unique=True, editable=False, help_text="SHA-256 of the key (hex).")
    per_minute = models.PositiveIntegerField(help_text="Requests a minute the key allows.")
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True, help_text="Set: the key is refused.")

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "API key"

    def __str__(self):
        return f"{self.name} ({self.prefix}…)"
