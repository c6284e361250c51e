from django.core.management.base import BaseCommand, CommandError
from django.db.models import Q

from ratings.models import RatingSystem
from ratings.selectors import EXPORT_HEADER, export_rows, publication_in_force
from ratingsite.arguments import iso_date
from ratingsite.csv_export import csv_write
from tournaments.models import Variant


class Command(BaseCommand):
    help = (
        "Print a rating system's ranking as CSV: current; as of a date (every period ended before it, as revised "
        "since); or, with --published, the list in force on that date (or today) exactly as it was published."
    )

    def add_arguments(self, parser):
        parser.add_argument("--system", required=True, help="slug, e.g. elo, glicko, global-glicko, knsb")
        parser.add_argument("--as-of", type=iso_date, help="YYYY-MM-DD")
        parser.add_argument("--variant", help="variant name or slug, e.g. 'Blood Bowl 2020'")
        parser.add_argument(
            "--published", action="store_true",
            help="the published list in force on --as-of (or today), as it was published, not as revised since",
        )
        parser.add_argument(
            "--bom", action="store_true",
            help="start with a UTF-8 byte order mark, for a file a spreadsheet will open (programs reading a pipe expect none)",
        )

    def handle(self, *args, system, as_of=None, variant=None, bom=False, published=False, **options):
        rating_system = RatingSystem.objects.filter(slug=system).first()
        if rating_system is None:
            known = ", ".join(RatingSystem.objects.values_list("slug", flat=True))
            raise CommandError(f"Unknown rating system '{system}'. Known: {known}.")
        chosen = None
        if variant:
            chosen = Variant.objects.filter(Q(name__iexact=variant) | Q(slug=variant)).first()
            if chosen is None:
                known = ", ".join(Variant.objects.values_list("name", flat=True))
                raise CommandError(f"Unknown variant '{variant}'. Known: {known}.")
        publication = None
        if published:
            publication = publication_in_force(rating_system, as_of)
            if publication is None:
                raise CommandError(f"{rating_system.name} has published no list dated on or before {as_of or 'today'}.")
            self.stderr.write(f"{publication}")
        rows = export_rows(rating_system, on=as_of, variant=chosen, publication=publication)
        csv_write(self.stdout, EXPORT_HEADER, rows, bom=bom)
