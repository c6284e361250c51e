"""Rebuild the statistics summary tables: `manage.py refresh_stats`."""
from django.core.management.base import BaseCommand

from stats.services import summaries_refresh


class Command(BaseCommand):
    help = "Rebuild the statistics summary tables from the recorded games."

    def handle(self, *args, **options):
        refresh = summaries_refresh()
        self.stdout.write(f"Statistics refreshed: {refresh.games} games in {refresh.duration:.1f} s.")
