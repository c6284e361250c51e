"""Print everything held about a coach (and his member account) as JSON: tournaments.privacy.coach_data."""
import json

from django.core.management.base import BaseCommand, CommandError

from tournaments.models import Coach
from tournaments.privacy import coach_data_export


class Command(BaseCommand):
    help = "Everything held about a coach and his member account, as JSON (the export is on record)."

    def add_arguments(self, parser):
        parser.add_argument("--coach", type=int, required=True, metavar="NUMBER", help="the coach's federation number")

    def handle(self, *args, coach: int, **options):
        found = Coach.objects.filter(number=coach).first()
        if found is None:
            raise CommandError(f"No coach has the federation number {coach}.")
        data = coach_data_export(coach=found, actor=None)
        self.stdout.write(json.dumps(data, indent=2, ensure_ascii=False))
