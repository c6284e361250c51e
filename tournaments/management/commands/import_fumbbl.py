"""python manage.py import_fumbbl data/naf/fumbbl_matches.csv [--tourneys PATH] [--skip-bad]"""
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from tournaments import signals
from tournaments.importers.fumbbl import FumbblFileError, import_matches
from tournaments.models import Game


class Command(BaseCommand):
    help = "Import FUMBBL games (data/naf/fumbbl_matches.csv) following the data README's conventions."

    def add_arguments(self, parser):
        parser.add_argument("matches", help="the FUMBBL matches CSV")
        parser.add_argument(
            "--tourneys",
            metavar="PATH",
            help="the FUMBBL tourneys CSV (default: fumbbl_tourneys.csv beside the matches file)",
        )
        parser.add_argument("--skip-bad", action="store_true", help="import the good rows even if some rows are bad")

    def handle(self, *args, matches, tourneys, skip_bad, **options):
        try:
            report = import_matches(
                matches, tourneys_path=tourneys, skip_bad=skip_bad, progress=tqdm if self.stdout.isatty() else None
            )
        except (OSError, FumbblFileError) as error:
            raise CommandError(str(error)) from error

        for bad_row in report.bad_rows:
            self.stderr.write(f"bad row: {bad_row}")
        if report.aborted:
            raise CommandError(
                f"{len(report.bad_rows)} bad rows: nothing imported. Fix them, or use --skip-bad to import the rest."
            )
        for warning in report.warnings:
            self.stdout.write(f"note: {warning}")
        lines = [
            ("games read", report.games_read),
            ("games imported", report.games_imported),
            ("games already present", report.games_already_present),
            ("games skipped (bad rows)", report.games_skipped),
            ("coaches created", report.coaches_created),
            ("events created", report.events_created),
            ("races created (unranked)", report.races_created),
            ("rounds created", report.rounds_created),
            ("participants created", report.participants_created),
        ]
        width = max(len(label) for label, _ in lines)
        for label, count in lines:
            self.stdout.write(f"{label:<{width}}  {count:>7,}")
        self.stdout.write(self.style.SUCCESS(f"done in {report.seconds:.1f} s"))
        if report.games_imported:
            signals.record_changed.send(sender=Game)  # the statistics rebuild their summaries
            self.stdout.write("statistics summaries: rebuild requested")
