import datetime as dt
import sys

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from ratings import selectors, services
from ratings.models import RatingSystem, Trigger


class Command(BaseCommand):
    help = "Recalculate rating systems forward from a date (default: from the first game), and print each run."

    def add_arguments(self, parser):
        parser.add_argument("--system", help="slug of one system (default: every active system)")
        parser.add_argument("--since", type=dt.date.fromisoformat, help="earliest affected date, YYYY-MM-DD")
        parser.add_argument("--reason", default="requested from the command line")

    def handle(self, *args, system=None, since=None, reason="", **options):
        systems = RatingSystem.objects.filter(active=True)
        if system:
            systems = RatingSystem.objects.filter(slug=system)
            if not systems:
                known = ", ".join(RatingSystem.objects.values_list("slug", flat=True))
                raise CommandError(f"Unknown rating system '{system}'. Known: {known}.")
        failed = 0
        # several systems replay the same games: read them once
        history = selectors.game_history(systems, since) if len(systems) > 1 else None
        for rating_system in systems:
            run = services.recalculation_request(
                system=rating_system, trigger=Trigger.MANUAL, since=since, reason=reason, enqueue=False
            )
            bar = tqdm(total=0, desc=rating_system.slug, unit="month", disable=not sys.stdout.isatty(), leave=False)

            def progress(done, total, bar=bar):
                bar.total = total
                bar.update(done - bar.n)

            try:
                run = services.recalculation_execute(run_id=run.pk, progress=progress, history=history)
            except Exception as exc:  # recorded on the run; report and go on with the next system
                failed += 1
                self.stderr.write(f"{rating_system.slug}: run {run.pk} failed: {exc}")
                continue
            finally:
                bar.close()
            self.stdout.write(
                f"{rating_system.slug}: run {run.pk} {run.status} from {run.recomputed_from or 'the first game'}, "
                f"{run.games_processed} games, {run.rows_written} rows in {run.duration:.1f} s"
            )
        if failed:
            raise CommandError(f"{failed} run(s) failed; the previous rankings are unchanged.")
