"""Each event's tournament: races chosen, Swiss rounds paired, games played by skill and race, awards."""
from __future__ import annotations

import datetime as dt
import math
import random

from tournaments.federation import STUNTY_RACES
from tournaments.models import (
    Side,
)

from .draws import DemoCoach, DemoEvent, DemoGame, DemoRound, _poisson, _Slot, _weighted
from .world import (
    AGILE,
    BASHY,
    BEST_PAINTED,
    CLASSIC,
    MOST_CASUALTIES,
    MOST_TOUCHDOWNS,
    NOT_IN_CLASSIC,
    POINTS,
    RACE_POPULARITY,
    RACE_STRENGTH,
    ROUND_TIMES,
    RUNNER_UP,
    SEVENS,
    STUNTY_CUP,
    WINNER,
)


def _race_for(rng: random.Random, coach: DemoCoach, variant: str) -> str:
    available = {
        race: weight for race, weight in RACE_POPULARITY.items() if variant != CLASSIC or race not in NOT_IN_CLASSIC
    }
    if coach.favourite_race in available and rng.random() < 0.6:
        return coach.favourite_race
    return _weighted(rng, available)


def _hits(race: str, opponent_race: str) -> float:
    """Mean casualties a team causes: bashers more, agile teams fewer, and agile victims break easily."""
    hits = 1.4 if race in BASHY else 0.7 if race in AGILE else 1.0
    return hits * (1.2 if opponent_race in AGILE else 1.0)


def _play(rng: random.Random, game: DemoGame, skill: dict[int, float], variant: str) -> None:
    home_strength = skill[game.home] + RACE_STRENGTH.get(game.home_race, 0)
    edge = home_strength - (skill[game.away] + RACE_STRENGTH.get(game.away_race, 0))
    mean = 1.0 if variant == SEVENS else 1.25
    game.home_touchdowns = _poisson(rng, mean * math.exp(0.3 * edge))
    game.away_touchdowns = _poisson(rng, mean * math.exp(-0.3 * edge))
    game.home_casualties = _poisson(rng, _hits(game.home_race, game.away_race) * math.exp(0.1 * edge))
    game.away_casualties = _poisson(rng, _hits(game.away_race, game.home_race) * math.exp(-0.1 * edge))
    margin = game.home_touchdowns - game.away_touchdowns
    if abs(margin) >= 2 and rng.random() < 0.04:
        game.conceded_by = Side.AWAY if margin > 0 else Side.HOME


def _home_score(game: DemoGame) -> float:
    if game.home_touchdowns == game.away_touchdowns:
        return 0.5
    return 1.0 if game.home_touchdowns > game.away_touchdowns else 0.0


def _pairings(order: list[int], met: dict[int, set[int]], budget: int = 20_000) -> list[tuple[int, int]]:
    """Pairs down the standings, each coach with the highest-placed one he has not met, backtracking
    when the rest cannot be paired; a rematch only when the search finds no way round it."""
    steps = 0

    def pair(pool: list[int]) -> list[tuple[int, int]] | None:
        nonlocal steps
        if not pool:
            return []
        first, rest = pool[0], pool[1:]
        for i, other in enumerate(rest):
            steps += 1
            if other in met[first] or steps > budget:
                continue
            tail = pair(rest[:i] + rest[i + 1:])
            if tail is not None:
                return [(first, other), *tail]
        return None

    found = pair(order)
    if found is not None:
        return found
    pool, pairs = list(order), []
    while pool:
        first = pool.pop(0)
        other = next((n for n in pool if n not in met[first]), pool[0])
        pool.remove(other)
        pairs.append((first, other))
    return pairs


def _swiss(rng: random.Random, slot: _Slot, players: list[DemoCoach], races: dict[int, str]) -> list[DemoRound]:
    """Swiss rounds: round one drawn at random, then by points (no rematch where one can be avoided);
    the lowest-placed coach who has not had one sits out an odd round with a bye."""
    skill = {coach.number: coach.skill for coach in players}
    points = {coach.number: 0 for coach in players}
    margin = {coach.number: 0 for coach in players}
    met: dict[int, set[int]] = {coach.number: set() for coach in players}
    had_bye: set[int] = set()
    tiebreak = {coach.number: rng.random() for coach in players}
    per_day = math.ceil(slot.rounds / slot.days)
    order = [coach.number for coach in players]
    rng.shuffle(order)
    rounds = []
    for index in range(slot.rounds):
        if index:
            order.sort(key=lambda n: (-points[n], -margin[n], tiebreak[n]))
        pool = list(order)
        games = []
        bye = None
        if len(pool) % 2:
            bye = next((n for n in reversed(pool) if n not in had_bye), pool[-1])
            pool.remove(bye)
            had_bye.add(bye)
            points[bye] += POINTS[1.0]
        for home, away in _pairings(pool, met):
            if rng.random() < 0.5:
                home, away = away, home
            game = DemoGame(home=home, away=away, home_race=races[home], away_race=races[away])
            _play(rng, game, skill, slot.variant)
            met[home].add(away)
            met[away].add(home)
            points[home] += POINTS[_home_score(game)]
            points[away] += POINTS[1.0 - _home_score(game)]
            margin[home] += game.home_touchdowns - game.away_touchdowns
            margin[away] += game.away_touchdowns - game.home_touchdowns
            games.append(game)
        if bye is not None:
            games.append(DemoGame(home=bye, away=None, home_race=races[bye], away_race=None))
        day, slot_in_day = divmod(index, per_day)
        rounds.append(DemoRound(index + 1, slot.start_date + dt.timedelta(days=day), ROUND_TIMES[slot_in_day], games))
    return rounds


def _awards(rng: random.Random, event: DemoEvent) -> list[tuple[str, int]]:
    """(category, coach number) by the final standings: points, then touchdown margin, then casualties."""
    points = {n: 0 for n in event.participants}
    margin = {n: 0 for n in event.participants}
    touchdowns = {n: 0 for n in event.participants}
    casualties = {n: 0 for n in event.participants}
    for round_ in event.rounds:
        for game in round_.games:
            if game.away is None:
                points[game.home] += POINTS[1.0]
                continue
            home_score = _home_score(game)
            for coach, score, scored, conceded, hurt in (
                (game.home, home_score, game.home_touchdowns, game.away_touchdowns, game.home_casualties),
                (game.away, 1.0 - home_score, game.away_touchdowns, game.home_touchdowns, game.away_casualties),
            ):
                points[coach] += POINTS[score]
                margin[coach] += scored - conceded
                touchdowns[coach] += scored
                casualties[coach] += hurt
    standings = sorted(event.participants, key=lambda n: (-points[n], -margin[n], -casualties[n], n))
    awards = [(WINNER, standings[0])]
    if len(standings) > 1:
        awards.append((RUNNER_UP, standings[1]))
    awards.append((BEST_PAINTED, rng.choice(sorted(event.participants))))
    awards.append((MOST_TOUCHDOWNS, min(standings, key=lambda n: (-touchdowns[n], standings.index(n)))))
    awards.append((MOST_CASUALTIES, min(standings, key=lambda n: (-casualties[n], standings.index(n)))))
    stunties = [n for n in standings if event.participants[n] in STUNTY_RACES]
    if stunties:
        awards.append((STUNTY_CUP, stunties[0]))
    return awards
