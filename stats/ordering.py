"""The explorer's order of games, shared by its filters and its table."""
from django.db.models import F
from django.db.models.functions import Coalesce


def game_order(*, descending: bool, few: bool) -> tuple:
    """Order by time of play. For a few known games (`few`: one coach's, a head-to-head's) the time
    is wrapped so the database sorts them instead of walking its index of all games from one end
    until it has met a page of them, which for old games means most of the record."""
    played_at = Coalesce("played_at", "played_at") if few else F("played_at")
    return (played_at.desc(), F("id").desc()) if descending else (played_at.asc(), F("id").asc())
