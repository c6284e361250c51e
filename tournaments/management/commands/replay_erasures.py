"""After a backup is restored: erase again every coach of the erasure log that the backup brought back."""
import os

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from tournaments.privacy import erasures_replay


class Command(BaseCommand):
    help = "Apply again every erasure of the erasure log (run it after restoring a backup)."

    def add_arguments(self, parser):
        parser.add_argument("--log", default=settings.ERASURE_LOG_FILE, metavar="FILE",
                            help="the copy of the erasure log kept outside the database (default: ERASURE_LOG_FILE)")

    def handle(self, *args, log: str, **options):
        if log and not os.path.exists(log):
            raise CommandError(f"There is no erasure log at {log}.")
        again = erasures_replay(log_file=log or None)
        if again:
            self.stdout.write(f"Erased again: {len(again)} coach(es), numbers {', '.join(map(str, again))}.")
        else:
            self.stdout.write("Every logged erasure is in place: nothing to erase again.")
