"""The API's documentation page: server-rendered, readable without JavaScript (the Swagger UI at
/api/v1/docs/ is the interactive one)."""
from django.conf import settings
from django.shortcuts import render

from api.cursor import DEFAULT_LIMIT, MAX_LIMIT
from api.endpoints import api
from api.keys import HEADER
from api.middleware import WINDOW


def documentation(request):
    schema = api.get_openapi_schema(path_prefix=request.path.rstrip("/"))
    operations = [
        {"method": method.upper(), "path": path, "summary": spec.get("summary", ""), "description": spec.get("description", ""),
         "parameters": [p["name"] for p in spec.get("parameters", []) if p.get("in") == "query"]}
        for path, methods in schema["paths"].items() for method, spec in methods.items()
    ]
    return render(request, "api/documentation.html", {
        "operations": operations,
        "anonymous": settings.API_RATE_ANONYMOUS,
        "keyed": settings.API_RATE_KEYED,
        "window": WINDOW,
        "header": HEADER.removeprefix("HTTP_").replace("_", "-").title().replace("Api", "API"),
        "default_limit": DEFAULT_LIMIT,
        "max_limit": MAX_LIMIT,
    })
