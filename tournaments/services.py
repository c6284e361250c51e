"""Writes to the federation's record. Every game goes through here so its two sides stay in step."""
from decimal import Decimal

from django.db import transaction

from .models import Game, GameKind, GameSide, Side

_SCORE = {1.0: Decimal("1"), 0.5: Decimal("0.5"), 0.0: Decimal("0")}


def game_sides_for(game: Game) -> list[GameSide]:
    """The unsaved GameSide rows of a saved game (one for a bye)."""
    home_score = game.home_score
    common = {"game_id": game.pk, "round_id": game.round_id, "event_id": game.event_id, "played_at": game.played_at}
    sides = [
        GameSide(
            side=Side.HOME,
            coach_id=game.home_coach_id,
            race_id=game.home_race_id,
            opponent_id=game.away_coach_id,
            opponent_race_id=game.away_race_id,
            touchdowns_for=game.home_touchdowns,
            touchdowns_against=game.away_touchdowns,
            casualties_for=game.home_casualties,
            casualties_against=game.away_casualties,
            score=_SCORE[home_score],
            **common,
        )
    ]
    if game.kind != GameKind.BYE:
        sides.append(
            GameSide(
                side=Side.AWAY,
                coach_id=game.away_coach_id,
                race_id=game.away_race_id,
                opponent_id=game.home_coach_id,
                opponent_race_id=game.home_race_id,
                touchdowns_for=game.away_touchdowns,
                touchdowns_against=game.home_touchdowns,
                casualties_for=game.away_casualties,
                casualties_against=game.home_casualties,
                score=_SCORE[1.0 - home_score],
                **common,
            )
        )
    return sides


@transaction.atomic
def game_record(*, game: Game) -> Game:
    """Save a new or changed game and rewrite its sides; the database refuses impossible games."""
    game.event_id = game.round.event_id
    game.full_clean(exclude=["event"])
    game.save()
    GameSide.objects.filter(game=game).delete()
    GameSide.objects.bulk_create(game_sides_for(game))
    return game
