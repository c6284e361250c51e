from django.apps import AppConfig


class AssuranceConfig(AppConfig):
    name = "assurance"
    verbose_name = "Assurance"

    def ready(self):
        from assurance import tasks  # noqa: F401  registers the accuracy refresh, which the ratings send by name
