"""Every table header cell the templates write says what it heads (issue 33, point 4: WCAG 1.3.1), so
a screen reader reads each cell with its column's and its row's header."""
import re
from pathlib import Path

from django.conf import settings

HEADER = re.compile(r"<th(?=[\s>])[^>]*>")


def test_every_th_in_the_templates_has_a_scope():
    templates = Path(settings.BASE_DIR) / "templates"
    missing = [
        f"{path.relative_to(templates)}: {tag}"
        for path in sorted(templates.rglob("*.html"))
        for tag in HEADER.findall(path.read_text(encoding="utf-8"))
        if not re.search(r'\bscope="(col|row|colgroup|rowgroup)"', tag)
    ]
    assert missing == []
