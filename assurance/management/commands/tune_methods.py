from django.core.management.base import BaseCommand, CommandError

from assurance.tuning.search import WindowError
from assurance.tuning.services import parameter_search_run
from ratings import selectors
from ratings.models import ParameterSearch, RatingSystem
from ratingsite.arguments import iso_date
from ratingsite.formatting import fixed


class Command(BaseCommand):
    help = (
        "Search each rating system's parameter (NAF Elo's K scale, Glicko's τ, KNSB's σ) over a grid: tuned on the "
        "games before the split, reported on the games from it on; stores and prints the search. The configured "
        "systems are not changed. Costly, a replay of the whole record per grid value (nine per system), so it is "
        "not run after every recalculation: on the FUMBBL sample (21,455 games) about 15 s for the four systems; at "
        "1,000,000 games about 16 minutes (20 to 30 s a replay)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--system", nargs="+", action="extend", metavar="SLUG",
                            help="slugs of the systems to search (default: every active system)")
        parser.add_argument("--split", type=iso_date, metavar="DATE",
                            help="first day of the evaluation window, YYYY-MM-DD (default: two years before the last game)")
        parser.add_argument("--from", dest="since", type=iso_date, metavar="DATE",
                            help="first day of the tuning window, YYYY-MM-DD (default: the first game)")

    def handle(self, *args, system=None, split=None, since=None, **options):
        systems, unknown = selectors.systems_named(system)
        if unknown:
            known = ", ".join(RatingSystem.objects.values_list("slug", flat=True))
            raise CommandError(f"Unknown rating system(s) {', '.join(unknown)}. Known: {known}.")
        try:
            stored = parameter_search_run(
                systems=systems, split=split, since=since,
                searched=lambda s, result, seconds: self.stderr.write(f"{s.slug}: searched in {seconds:.1f} s"),
            )
        except WindowError as error:
            raise CommandError(f"Nothing searched: {error}.") from None
        for search in stored:
            self.stdout.write(describe(search))


def describe(search: ParameterSearch) -> str:
    """The stored search as the command prints it: windows, grid, best value."""
    name, places = search.get_parameter_display(), search.places
    lines = [
        f"{search.system.slug} ({search.system.name}): {name} configured {fixed(search.configured, places)}, "
        f"best {fixed(search.best, places)}{' (the grid edge: a value beyond it may do better still)' if search.at_edge else ''}",
        f"  tuning window {search.tuning_from} to {search.tuning_to}: {search.tuning_games:,} games; "
        f"evaluation window {search.evaluation_from} to {search.evaluation_to}: {search.evaluation_games:,} games",
        f"  {name:>10}  {'tuning':>8}  {'evaluation':>10}   (log loss)",
    ]
    for point in search.grid:
        mark = " ".join(word for word, on in (("best", point["value"] == search.best),
                                              ("configured", point["value"] == search.configured)) if on)
        figures = f"{fixed(point['value'], places):>10}  {fixed(point['tuning'], 4):>8}  {fixed(point['evaluation'], 4):>10}"
        lines.append(f"  {figures}   {mark}".rstrip())
    lines.append(f"  searched in {search.seconds:.1f} s")
    return "\n".join(lines)
