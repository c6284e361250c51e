from django.core.management.base import BaseCommand, CommandError

from ratings.models import RatingSystem
from ratings.verification import verify_system


class Command(BaseCommand):
    help = "Recompute rating systems from scratch in memory and compare with every stored row; non-zero exit on a difference."

    def add_arguments(self, parser):
        parser.add_argument("--system", help="slug of one system (default: every active system)")
        parser.add_argument("--limit", type=int, default=10, help="how many differences to print per system")

    def handle(self, *args, system=None, limit=10, **options):
        systems = RatingSystem.objects.filter(slug=system) if system else RatingSystem.objects.filter(active=True)
        if system and not systems:
            raise CommandError(f"Unknown rating system '{system}'.")
        total = 0
        for rating_system in systems:
            diffs = verify_system(rating_system, limit=limit)
            total += diffs.count
            if diffs.count:
                self.stdout.write(f"{rating_system.slug}: {diffs.count} difference(s); the first:")
                for line in diffs.first:
                    self.stdout.write(f"  {line}")
            else:
                self.stdout.write(f"{rating_system.slug}: every stored figure matches a fresh recalculation")
        if total:
            raise CommandError(f"{total} difference(s) between the stored ratings and a fresh recalculation.")
