from django.apps import AppConfig


class RatingPagesConfig(AppConfig):
    name = "rating_pages"
    verbose_name = "Rating pages"

    def ready(self):
        from django.db.models.signals import post_delete, post_save

        from rating_pages.filters import forget_choices
        from tournaments.models import Coach, Event, Race, Variant

        for model in (Race, Variant, Coach, Event):
            post_save.connect(forget_choices, sender=model, dispatch_uid=f"forget-choices-{model.__name__}")
            post_delete.connect(forget_choices, sender=model, dispatch_uid=f"forget-delete-choices-{model.__name__}")
