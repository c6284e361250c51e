import getpass
import signal
import socket
import sys

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from ratings import services
from ratings.models import RatingSystem, RunStatus, Trigger
from ratingsite.arguments import iso_date


class Command(BaseCommand):
    help = "Recalculate rating systems forward from a date (default: from the first game), and print each run."

    def add_arguments(self, parser):
        parser.add_argument("--system", help="slug of one system (default: every active system)")
        parser.add_argument("--since", type=iso_date, help="earliest affected date, YYYY-MM-DD")
        parser.add_argument("--reason", default="requested from the command line")
        parser.add_argument("--user", help="the site account that asked (recorded on the runs; default: none)")
        parser.add_argument(
            "--jobs", type=int, default=2,
            help="runs at once on PostgreSQL, in a pool of processes forked from this one (default 2)",
        )
        parser.add_argument(
            "--enqueue", action="store_true",
            help="hand the runs to the Celery workers as one group instead of running them here, and return",
        )

    def handle(self, *args, system=None, since=None, reason="", jobs=2, user=None, enqueue=False, **options):
        # SIGTERM as Ctrl-C: the runs' processes are stopped and their runs failed before this one ends
        signal.signal(signal.SIGTERM, _stop)
        asked_by = None
        if user:
            asked_by = get_user_model().objects.filter(username=user).first()
            if asked_by is None:
                raise CommandError(f"There is no account '{user}'.")
        # who ran the command is on record even without an account
        reason = f"{reason} (manage.py recalculate by {getpass.getuser()}@{socket.gethostname()})"[:300]
        systems = RatingSystem.objects.filter(active=True)
        if system:
            systems = RatingSystem.objects.filter(slug=system)
            if not systems:
                known = ", ".join(RatingSystem.objects.values_list("slug", flat=True))
                raise CommandError(f"Unknown rating system '{system}'. Known: {known}.")
        runs = [
            services.recalculation_request(
                system=rating_system, trigger=Trigger.MANUAL, since=since, reason=reason, requested_by=asked_by,
                enqueue=False,
            )
            for rating_system in systems
        ]
        if enqueue:
            services.recalculation_enqueue(run_ids=[run.pk for run in runs])
            for run in runs:
                self.stdout.write(f"{run.system.slug}: run {run.pk} queued from {since or 'the first game'}")
            return
        tqdm.monitor_interval = 0  # no monitor thread: runs go on in forked processes, which must not inherit its lock
        bars = {
            run.pk: tqdm(total=0, desc=run.system.slug, unit="month", position=index, leave=False,
                         disable=not sys.stdout.isatty())
            for index, run in enumerate(runs)
        }

        def progress(run_id):
            bar = bars[run_id]

            def advance(done, total):
                bar.total = total
                bar.update(done - bar.n)
            return advance

        outcomes = services.recalculation_execute_many(
            [run.pk for run in runs], jobs=jobs, progress=progress,
        )
        for bar in bars.values():
            bar.close()
        failed, refreshed = 0, []
        for queued, outcome in zip(runs, outcomes):
            if isinstance(outcome, Exception):
                failed += 1
                self.stderr.write(f"{queued.system.slug}: run {queued.pk} failed: {outcome}")
                continue
            self.stdout.write(
                f"{outcome.system.slug}: run {outcome.pk} {outcome.status} from {outcome.recomputed_from or 'the first game'}, "
                f"{outcome.games_processed} games, {outcome.rows_written} rows in {outcome.duration:.1f} s"
            )
            if outcome.status == RunStatus.SUCCEEDED:
                refreshed.append(outcome.system_id)
        if refreshed:
            services.accuracy_refresh_request(system_ids=refreshed)  # as after a worker's runs (the games read once)
        if failed:
            raise CommandError(f"{failed} run(s) failed; the previous rankings are unchanged.")


def _stop(signum, frame):
    raise SystemExit(128 + signum)
