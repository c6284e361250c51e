"""The Celery app: production settings unless DJANGO_SETTINGS_MODULE names others; broker from settings
(Redis in production), eager in-process when unset."""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratingsite.settings.production")

app = Celery("ratingsite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# The app of every thread: a signature sent from a thread of its own (a threaded server, a thread
# pool) would otherwise go through Celery's fallback app, without these settings' broker timeouts.
app.set_default()
