from django.core.management.base import BaseCommand, CommandError

from ratings.models import RatingSystem
from ratings.verification import verify_systems


class Command(BaseCommand):
    help = (
        "Recompute rating systems from scratch in memory and compare with every stored row, and check every stored "
        "figure against its own rows by its method's formula; non-zero exit on a difference."
    )

    def add_arguments(self, parser):
        parser.add_argument("--system", help="slug of one system (default: every active system)")
        parser.add_argument("--limit", type=int, default=10, help="how many differences to print per system")
        parser.add_argument(
            "--jobs", type=int, default=2,
            help="PostgreSQL: systems verified at once, each in a process of its own (default 2)",
        )

    def handle(self, *args, system=None, limit=10, jobs=2, **options):
        systems = RatingSystem.objects.filter(slug=system) if system else RatingSystem.objects.filter(active=True)
        if system and not systems:
            raise CommandError(f"Unknown rating system '{system}'.")
        replayed = inconsistent = 0
        for rating_system, diffs in verify_systems(list(systems), limit=limit, jobs=jobs):
            replayed += diffs.replayed
            inconsistent += diffs.inconsistent
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
            if not diffs.count:
                self.stdout.write(f"{slug}: every stored figure matches a fresh recalculation")
        problems = []
        if replayed:
            problems.append(f"{replayed} difference(s) between the stored ratings and a fresh recalculation")
        if inconsistent:
            problems.append(f"{inconsistent} stored figure(s) that disagree with their own rows or formula")
        if problems:
            raise CommandError("; ".join(problems) + ".")
