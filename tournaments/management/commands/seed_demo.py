"""python manage.py seed_demo [--seed N] [--coaches N] [--events N] [--today YYYY-MM-DD] [--report-late]"""

from django.core.management.base import BaseCommand, CommandError

from ratingsite.arguments import iso_date
from tournaments.demo import demo_federation_create, demo_late_reports_sanction


class Command(BaseCommand):
    help = "Add a generated federation (coaches, sanctioned events, games, awards); the same seed gives the same rows."

    def add_arguments(self, parser):
        parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
        parser.add_argument("--coaches", type=int, default=2000, help="number of coaches (default 2000)")
        parser.add_argument("--events", type=int, default=320, help="number of events (default 320)")
        parser.add_argument(
            "--today", type=iso_date,
            help="the seeding day, YYYY-MM-DD: the demo's dates move by whole weeks to fall just before it "
                 "(default: today; --report-late reports on the day it runs, after the lists it follows)",
        )
        parser.add_argument(
            "--report-late", action="store_true",
            help="sanction the demo's event reported late, once a recalculation has published the lists after it "
                 "(its runs follow, as a sanction's do: in process by default, else on the workers)",
        )

    def handle(self, *args, seed, coaches, events, today=None, report_late=False, **options):
        if report_late:
            sanctioned = demo_late_reports_sanction(seed=seed, coaches=coaches, events=events)
            for event in sanctioned:
                self.stdout.write(f"sanctioned, reported late: {event.name} ({event.start_date:%Y-%m-%d})")
            self.stdout.write(self.style.SUCCESS(f"{len(sanctioned)} event{'s' if len(sanctioned) != 1 else ''} reported late"))
            return
        try:
            report = demo_federation_create(seed=seed, coaches=coaches, events=events, today=today)
        except ValueError as error:
            raise CommandError(str(error)) from error
        lines = [
            ("coaches created", report.coaches_created),
            ("events created", report.events_created),
            ("events already present", report.events_present),
            ("participants created", report.participants_created),
            ("rounds created", report.rounds_created),
            ("games created", report.games_created),
            ("awards created", report.awards_created),
        ]
        width = max(len(label) for label, _ in lines)
        for label, count in lines:
            self.stdout.write(f"{label:<{width}}  {count:>7,}")
        self.stdout.write(f"dated before {report.seeding_day:%Y-%m-%d}: moved {report.weeks_moved:,} weeks")
        self.stdout.write(self.style.SUCCESS(f"done in {report.seconds:.1f} s"))
