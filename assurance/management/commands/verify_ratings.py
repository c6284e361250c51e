from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from assurance.verification import verify_systems
from ratings.models import RatingSystem
from ratingsite.arguments import iso_date


class Command(BaseCommand):
    help = (
        "Recompute rating systems from scratch in memory and compare with every stored row, and check every stored "
        "figure against its own rows by its method's formula, and each published list against its digest, its ranking "
        "rule and the games reported before it was published; non-zero exit on a difference."
    )

    def add_arguments(self, parser):
        parser.add_argument("--system", help="slug of one system (default: every active system)")
        parser.add_argument("--limit", type=int, default=10, help="how many differences to print per system")
        parser.add_argument(
            "--jobs", type=int, default=2,
            help="PostgreSQL: systems verified at once, each in a process of its own (default 2)",
        )
        parser.add_argument(
            "--today", type=iso_date,
            help="YYYY-MM-DD: verify as of this day (default: today), as the runs that made the history ran",
        )

    def handle(self, *args, system=None, limit=10, jobs=2, today=None, **options):
        if today is not None and today > timezone.localdate():
            raise CommandError(f"--today {today} is after today: a history can only be verified as of a day that has come.")
        systems = RatingSystem.objects.filter(slug=system) if system else RatingSystem.objects.filter(active=True)
        if system and not systems:
            raise CommandError(f"Unknown rating system '{system}'.")
        replayed = inconsistent = published = 0
        for rating_system, diffs in verify_systems(list(systems), today=today, limit=limit, jobs=jobs):
            replayed += diffs.replayed
            inconsistent += diffs.inconsistent
            published += diffs.published
            slug = rating_system.slug
            if diffs.replayed:
                self.stdout.write(f"{slug}: {diffs.replayed} difference(s) from a fresh recalculation; the first:")
                for line in diffs.first_replayed:
                    self.stdout.write(f"  {line}")
            if diffs.inconsistent:
                self.stdout.write(
                    f"{slug}: {diffs.inconsistent} stored figure(s) disagree with their own rows or formula; the first:"
                )
                for line in diffs.first_inconsistent:
                    self.stdout.write(f"  {line}")
            if diffs.published:
                self.stdout.write(
                    f"{slug}: {diffs.published} published figure(s) not as published or not as the games reported "
                    "before the publication give; the first:"
                )
                for line in diffs.first_published:
                    self.stdout.write(f"  {line}")
            for note in diffs.notes:
                self.stdout.write(f"{slug}: {note}")
            if not diffs.count:
                self.stdout.write(f"{slug}: every stored figure matches a fresh recalculation")
        problems = []
        if replayed:
            problems.append(f"{replayed} difference(s) between the stored ratings and a fresh recalculation")
        if inconsistent:
            problems.append(f"{inconsistent} stored figure(s) that disagree with their own rows or formula")
        if published:
            problems.append(f"{published} published figure(s) not as published or not as reported before publication")
        if problems:
            raise CommandError("; ".join(problems) + ".")
