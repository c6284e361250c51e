from django.apps import AppConfig


class DownloadsConfig(AppConfig):
    name = "downloads"
    verbose_name = "Open data downloads"
