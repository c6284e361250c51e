"""Remake the golden exports that tests/ratings/test_export_golden.py compares with:

    .venv/bin/python tools/golden_exports.py            (NAF_DATA: the FUMBBL folder, default ../shared/data/naf)

Run it only when a change of figures is meant (a new rule, a fixed bug), and say so in the commit:
the files are the record of what the exports said before. It builds the data exactly as the test
does (tests/ratings/golden_exports.py), in a throwaway test database made from the migrations
(SQLite in memory, or test_<name> beside DATABASE_URL's), inside a transaction it rolls back, and
writes tests/data/exports/<slug>.<kind>.csv.gz.
"""
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratingsite.settings.test")
    import django

    django.setup()
    from django.db import connection, transaction
    from django.test.utils import setup_test_environment

    from tests.ratings import golden_exports

    naf_data = Path(os.environ.get("NAF_DATA") or ROOT.parent / "shared" / "data" / "naf")
    if not (naf_data / "fumbbl_matches.csv").exists():
        print(f"the FUMBBL data set is not at {naf_data}: set NAF_DATA to the folder holding fumbbl_matches.csv", file=sys.stderr)
        return 2
    setup_test_environment()
    name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    started = time.perf_counter()
    try:
        # as in a test: nothing commits, so no on_commit hook hands work to a broker
        with transaction.atomic():
            slugs = golden_exports.build(naf_data).slugs
            print(f"imported and recalculated {', '.join(slugs)} in {time.perf_counter() - started:.1f} s")
            for slug in slugs:
                for kind in golden_exports.KINDS:
                    content = golden_exports.exported(slug, kind)
                    target = golden_exports.store(slug, kind, content)
                    lines = content.count(b"\n")
                    print(f"{target.relative_to(ROOT)}: {lines} lines, {len(content)} bytes, {target.stat().st_size} gzipped")
            transaction.set_rollback(True)
    finally:
        connection.creation.destroy_test_db(name, verbosity=0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
