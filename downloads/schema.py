"""The column dictionary of every kind of open-data file: written into manifest.json (in English) and
shown on /data/ (in the page's language). A column is (name, type, description)."""
from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from ratings.selectors import EXPORT_HEADER

# Which file kinds hold which columns: a file's "schema" in the manifest names one of these.
LIST_CSV = "list-csv"
LIST_JSON = "list-json"
LIST_KNSB = "list-knsb"
GAMES = "games"
RATINGS = "ratings"

_LIST_COLUMNS = {
    "coach_number": ("integer", _("The coach's federation number: stable, the key to join files on.")),
    "coach": ("text", _("The coach's public name when the file was written: his name, his pseudonym, or the "
                        "anonymous label of a hidden coach.")),
    "race": ("text", _("The race; empty where the system pools every race.")),
    "variant": ("text", _("The rules variant.")),
    "rating": ("decimal", _("The ranking value: NAF Elo's CR, Glicko's μ − 2.5·φ, or the KNSB list rating "
                            "(whole numbers), as the site shows it.")),
    "mu": ("decimal", _("Glicko's μ (2 decimals); empty for other methods.")),
    "phi": ("decimal", _("Glicko's φ (2 decimals); empty for other methods.")),
    "sigma": ("decimal", _("Glicko's σ (6 decimals); empty for other methods.")),
    "rank": ("integer", _("Rank within the system, variant and race; empty when the rating is inactive.")),
    "games": ("integer", _("Games the rating counts.")),
}
assert tuple(_LIST_COLUMNS) == tuple(EXPORT_HEADER), "the list files' columns are export_ratings' header"

_SYSTEM = {"system": ("text", _("The rating system's short name (elo, glicko, global-glicko, knsb)."))}

# The KNSB's own list layout, as pairing programs import it: its Dutch column names kept.
KNSB_HEADER = ("Relatienummer", "Naam", "Rating", "Nv", "Geboortejaar")
_KNSB_COLUMNS = {
    "Relatienummer": ("integer", _("The coach's federation number.")),
    "Naam": ("text", _("The coach's public name when the file was written.")),
    "Rating": ("integer", _("The KNSB list rating, a whole number.")),
    "Nv": ("integer", _("Nv: the number of games the rating rests on (at most 100).")),
    "Geboortejaar": ("integer", _("Birth year: always empty, as birth years are personal data the site does not publish.")),
}

_GAME_COLUMNS = {
    "game_id": ("integer", _("The game's number on the site.")),
    "event_id": ("integer", _("The event's number on the site (its page is /events/<number>/).")),
    "event": ("text", _("The event's name.")),
    "event_status": ("text", _("sanctioned, or open_play (recorded play that is never rated).")),
    "variant": ("text", _("The rules variant of the event.")),
    "round": ("integer", _("The round of the event.")),
    "played_at": ("timestamp", _("When the game was played, in UTC (ISO 8601).")),
    "reported_on": ("date", _("When the result entered the record (its event's sanction or a correction); empty for open play.")),
    "kind": ("text", _("played, forfeit or bye.")),
    "home_coach_number": ("integer", _("The home coach's federation number.")),
    "home_coach": ("text", _("The home coach's public name when the file was written.")),
    "home_race": ("text", _("The home coach's race.")),
    "home_touchdowns": ("integer", _("Touchdowns scored by the home coach.")),
    "home_casualties": ("integer", _("Casualties caused by the home coach.")),
    "away_coach_number": ("integer", _("The away coach's federation number; empty for a bye.")),
    "away_coach": ("text", _("The away coach's public name when the file was written; empty for a bye.")),
    "away_race": ("text", _("The away coach's race; empty for a bye.")),
    "away_touchdowns": ("integer", _("Touchdowns scored by the away coach.")),
    "away_casualties": ("integer", _("Casualties caused by the away coach.")),
    "conceded_by": ("text", _("home or away if that side conceded; empty otherwise.")),
}
GAME_HEADER = tuple(_GAME_COLUMNS)
RATINGS_HEADER = ("system", *EXPORT_HEADER)

SCHEMAS = {
    LIST_CSV: _LIST_COLUMNS,
    LIST_JSON: _LIST_COLUMNS,
    LIST_KNSB: _KNSB_COLUMNS,
    GAMES: _GAME_COLUMNS,
    RATINGS: {**_SYSTEM, **_LIST_COLUMNS},
}

SCHEMA_TITLES = {
    LIST_CSV: _("Published list, CSV (the columns of export_ratings and the site's list CSV)"),
    LIST_JSON: _("Published list, JSON (the same columns, as objects under \"entries\")"),
    LIST_KNSB: _("KNSB list rating in the KNSB's list layout (semicolons)"),
    GAMES: _("The game record (nightly dump)"),
    RATINGS: _("The current ratings of every system (nightly dump)"),
}


def schema_dictionary() -> dict[str, list[dict[str, str]]]:
    """Every schema as the manifest writes it: name -> [{name, type, description}], descriptions in
    the active language."""
    return {
        kind: [{"name": name, "type": kind_type, "description": str(text)} for name, (kind_type, text) in columns.items()]
        for kind, columns in SCHEMAS.items()
    }
