"""The WSGI application (gunicorn ratingsite.wsgi): production settings unless DJANGO_SETTINGS_MODULE names others."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratingsite.settings.production")
application = get_wsgi_application()
