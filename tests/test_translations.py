"""The Dutch catalogue is complete: every string marked for translation in the templates and the code
(what `makemessages` finds today) has a Dutch translation there, none fuzzy or empty, with the same
placeholders, and the compiled catalogue the site loads (django.mo) says what the .po says."""
import ast
import gettext
import os
import re
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

CATALOGUE = settings.BASE_DIR / "locale" / "nl" / "LC_MESSAGES"
MAKEMESSAGES_IGNORED = [".venv", "tests", "bench", "tools", "staticfiles", "static", "node_modules"]
MESSAGE_SOURCES = (".html", ".txt", ".py")  # what makemessages reads for the django domain (its default extensions)
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")


def parse_po(path: Path) -> dict[tuple[str, str], dict]:
    """(context, msgid) -> {"plural", "strings" (msgstr or msgstr[n] in order), "fuzzy"} of every
    entry but the header and the obsolete ones."""
    entries, entry, field = {}, None, None

    def close():
        if entry and entry.get("msgid"):
            key = (entry.get("msgctxt", ""), entry["msgid"])
            entries[key] = {"plural": entry.get("msgid_plural"), "fuzzy": entry["fuzzy"],
                            "strings": [entry[name] for name in sorted(n for n in entry if n.startswith("msgstr"))]}

    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        if line.startswith("#~"):
            continue
        if not line.strip():
            close()
            entry, field = None, None
            continue
        if entry is None:
            entry = {"fuzzy": False}
        if line.startswith("#,") and "fuzzy" in line:
            entry["fuzzy"] = True
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            entry[field] += _unquote(line)
        else:
            field, _, value = line.partition(" ")
            entry[field] = _unquote(value)
    return entries


def _unquote(text: str) -> str:
    # a PO string is a C string: its escapes (\n, \", \\) read as Python's
    return ast.literal_eval(text.strip())


@pytest.fixture(scope="module")
def marked(tmp_path_factory) -> dict:
    """The strings marked today, as `makemessages` writes them for a fresh Dutch catalogue: run over
    a copy of the project's folders (never its own locale/, which makemessages would rewrite). A copy,
    not links: makemessages writes each template's `.html.py` beside it and removes it after, and two
    runs on the same folder (the other xdist worker's, a developer's) remove each other's."""
    if shutil.which("xgettext") is None:
        pytest.fail("GNU gettext is needed (apt-get install gettext): `make test` installs it")
    work = tmp_path_factory.mktemp("makemessages")
    source, out = work / "source", work / "locale"
    source.mkdir()
    for entry in settings.BASE_DIR.iterdir():
        if entry.name not in MAKEMESSAGES_IGNORED and entry.name != "locale" and not entry.name.startswith("."):
            if entry.is_dir():
                shutil.copytree(entry, source / entry.name, ignore=_not_message_sources)
            elif entry.name.endswith(MESSAGE_SOURCES):
                shutil.copy2(entry, source / entry.name)
    here = os.getcwd()
    os.chdir(source)
    try:
        # override_settings, not a bare assignment: leaving it empties the translation caches, which
        # would otherwise keep catalogues loaded from the temporary folder
        with override_settings(LOCALE_PATHS=[out]):
            call_command("makemessages", locale=["nl"], ignore_patterns=MAKEMESSAGES_IGNORED, verbosity=0)
    finally:
        os.chdir(here)
    return parse_po(out / "nl" / "LC_MESSAGES" / "django.po")


def _not_message_sources(folder: str, names: list[str]) -> list[str]:
    """The copy leaves out what makemessages does not read (a developer's demo database, caches)."""
    return [name for name in names if name == "__pycache__"
            or not (name.endswith(MESSAGE_SOURCES) or os.path.isdir(os.path.join(folder, name)))]


@pytest.fixture(scope="module")
def dutch() -> dict:
    return parse_po(CATALOGUE / "django.po")


def test_every_marked_string_is_in_the_dutch_catalogue(marked, dutch):
    missing = sorted(key for key in marked if key not in dutch)
    assert missing == []


def test_no_dutch_translation_is_fuzzy_or_empty(dutch):
    unfinished = sorted(key for key, entry in dutch.items() if entry["fuzzy"] or not all(entry["strings"]))
    assert unfinished == []


def test_the_dutch_catalogue_holds_no_string_the_site_no_longer_marks(marked, dutch):
    assert sorted(key for key in dutch if key not in marked) == []


def test_each_translation_keeps_the_placeholders_of_its_original(dutch):
    wrong = []
    for (_context, msgid), entry in dutch.items():
        wanted = set(PLACEHOLDER.findall(msgid)) | set(PLACEHOLDER.findall(entry["plural"] or ""))
        for text in entry["strings"]:
            if set(PLACEHOLDER.findall(text)) - wanted or (not entry["plural"] and set(PLACEHOLDER.findall(text)) != wanted):
                wrong.append((msgid, text))
    assert wrong == []


def test_the_compiled_catalogue_is_the_po_compiled(dutch):
    with open(CATALOGUE / "django.mo", "rb") as compiled:
        catalogue = gettext.GNUTranslations(compiled)
    for (context, msgid), entry in dutch.items():
        key = f"{context}\x04{msgid}" if context else msgid
        if entry["plural"]:
            assert [catalogue._catalog[(key, n)] for n in range(len(entry["strings"]))] == entry["strings"], msgid
        else:
            assert catalogue._catalog[key] == entry["strings"][0], msgid
