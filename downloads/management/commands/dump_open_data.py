from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from downloads.services import open_data_dump


class Command(BaseCommand):
    help = (
        "Write the open data as the nightly task does: the files of every published list not yet written, today's "
        "dump of the game record and the current ratings (gzip CSV and Parquet), and manifest.json. Files already "
        "written are never rewritten: a second run the same day writes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("--root", type=Path, help="the folder to write to (default: the DATA_FILES_ROOT setting)")
        parser.add_argument("--lists-only", action="store_true", help="the list files only, no dump of the game record")

    def handle(self, *args, root=None, lists_only=False, **options):
        result = open_data_dump(root=root, dumps=not lists_only)
        if result.busy:
            raise CommandError("Another dump is writing to this folder: try again once it has finished.")
        self.stdout.write(
            f"Wrote {len(result.written)} files, withdrew {len(result.withdrawn)}, "
            f"{len(result.errata)} errata entries, in {result.seconds:.1f} s."
        )
        for path in result.written:
            self.stdout.write(f"  + {path}")
        for path in result.withdrawn:
            self.stdout.write(f"  - {path}")
