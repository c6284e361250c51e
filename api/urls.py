"""/api/v1/: the documentation page, then the API's operations, its OpenAPI 3.1 schema (schema/) and
its Swagger UI (docs/, from django-ninja's own static files)."""
from django.urls import path

from api import views
from api.endpoints import api

urlpatterns = [
    path("", views.documentation, name="api_documentation"),
    path("", api.urls),
]
