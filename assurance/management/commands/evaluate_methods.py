"""python manage.py evaluate_methods [--system SLUG ...] [--from DATE] [--to DATE]"""

from django.core.management.base import BaseCommand, CommandError

from assurance.accuracy.report import PREDICTORS, accuracy_reports_compute, accuracy_reports_refresh
from ratings import selectors
from ratings.models import RatingSystem
from ratingsite.arguments import iso_date


def figure(value, spec: str) -> str:
    """A figure as printed; one that does not exist (no favourite in an even prediction) is "–"."""
    return "–" if value is None else format(value, spec)


def report_lines(report: dict) -> list[str]:
    """The report as text tables: the page shows the same figures."""
    window = f"{report['from'] or 'the first game'} to {report['to'] or 'the last'}"
    lines = [f"{report['name']} ({report['system']}): {report['games']:,} games, {window}"]
    if not report["games"]:
        return lines
    lines.append(f"  draws {report['draws']:.1%}; played {report['first']} to {report['last']}")
    lines.append(f"  {'predictor':<22} {'log loss':>9} {'Brier':>7} {'favourite':>10} {'W/D/L loss':>11}")
    for name, label in PREDICTORS:
        f = report["overall"][name]
        lines.append(f"  {label:<22} {figure(f['log_loss'], '.4f'):>9} {figure(f['brier'], '.4f'):>7} "
                     f"{figure(f['favourite_share'], '.1%'):>10} {figure(f['outcome_log_loss'], '.4f'):>11}")
    for kind, groups in report["splits"].items():
        lines.append(f"  {'by ' + kind:<22} {'games':>9} {'log loss':>9} {'race table':>11} {'Brier':>7} {'favourite':>10}")
        for g in groups:
            method = g["method"]
            lines.append(f"  {g['label']:<22} {g['games']:>9,} {figure(method['log_loss'], '.4f'):>9} "
                         f"{figure(g['race_table']['log_loss'], '.4f'):>11} {figure(method['brier'], '.4f'):>7} "
                         f"{figure(method['favourite_share'], '.1%'):>10}")
    lines.append(f"  {'calibration':<22} {'games':>9} {'expected':>9} {'observed':>9}")
    for b in report["calibration"]:
        lines.append(f"  {b['low']:.1f}–{b['high']:.1f}{'':<15} {b['games']:>9,} {figure(b['expected'], '.3f'):>9} "
                     f"{figure(b['observed'], '.3f'):>9}")
    return lines


class Command(BaseCommand):
    help = ("How well each rating system's stored predictions matched the results (log loss, Brier, the favourite's "
            "share, calibration, beside two baselines). Without a window the report of every game is also stored "
            "for /about/accuracy/.")

    def add_arguments(self, parser):
        parser.add_argument("--system", action="append", metavar="SLUG", help="a system's slug (repeatable; default: every active one)")
        parser.add_argument("--from", dest="start", type=iso_date, metavar="DATE", help="first day of play (YYYY-MM-DD)")
        parser.add_argument("--to", dest="end", type=iso_date, metavar="DATE", help="last day of play (YYYY-MM-DD)")

    def handle(self, *args, system=None, start=None, end=None, **options):
        if start and end and start > end:
            raise CommandError(f"--from {start} is after --to {end}.")
        systems, unknown = selectors.systems_named(system)
        if unknown:
            raise CommandError(f"No rating system “{unknown[0]}”; the systems are: "
                               + ", ".join(RatingSystem.objects.order_by("slug").values_list("slug", flat=True)))
        if start is None and end is None:
            reports = [stored.figures for stored in accuracy_reports_refresh(systems=systems)]
        else:
            reports = accuracy_reports_compute(systems=systems, start=start, end=end)
        for figures in reports:
            self.stdout.write("\n".join(report_lines(figures)) + "\n")
