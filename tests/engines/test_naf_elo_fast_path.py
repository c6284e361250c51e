"""NAF Elo's fast path (run_history) equals the calculator applied game by game, by hand."""
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from rating_engines.common import AWAY, BYE, FORFEIT, HOME, PLAYED, CalculationRow, CountingRule, GameRecord, PeriodSummary
from rating_engines.naf_elo import (
    EloConfig,
    EloState,
    home_score,
    k_value,
    rating_after,
    rating_change,
    run_history,
    win_probability,
)

DAY = datetime(2023, 5, 6)
VARIANTS = ["bb2020", "sevens"]


@dataclass
class KeyTotals:
    rl: float | None = None
    rn: float | None = None
    nt: int = 0
    games_played: int = 0
    wt: float = 0.0
    wet: float = 0.0
    rtt: float = 0.0
    rc_sum: float = 0.0
    is_start: bool = False
    last_day: date | None = None


@dataclass
class Event:
    label: str
    end: date
    totals: dict


def summaries_of(event):
    return [
        PeriodSummary(coach, race, variant, event.label, t.last_day, t.rl, t.rn, t.nt, t.games_played, t.wt, t.wet,
                      t.rtt, t.rc_sum / t.nt, is_start=t.is_start)
        for (coach, race, variant), t in event.totals.items() if t.nt
    ]


def by_hand(games, config, ratings):
    """The spec applied step by step: games in (played_at, game_id) order, both sides of a game rated
    from the CRs before it; each event's totals per rating key, handed out once a game is played
    after the event's end (its event_end, or the day of its latest game if later)."""
    counting = CountingRule.of(config)
    ratings = dict(ratings)
    rows, summaries, events = [], [], {}
    for g in sorted(games, key=lambda g: (g.played_at, g.game_id)):
        day = g.played_at.date()
        for event_id in [e for e, event in events.items() if event.end < day]:
            summaries += summaries_of(events.pop(event_id))
        event = events.setdefault(g.event_id, Event(f"event:{g.event_id}", g.event_end or day, {}))
        event.end = max(event.end, day)
        home_race, away_race = (g.home_race, g.away_race) if config.per_race else (None, None)
        home_key, away_key = (g.home, home_race, g.variant), (g.away, away_race, g.variant)
        # side, coach, the race rated, opponent, opponent's race
        sides = [(HOME, g.home, home_race, g.away, g.away_race)]
        if g.away is not None:
            sides.append((AWAY, g.away, away_race, g.home, g.home_race))
        reason = counting.exclusion(g)
        if reason is not None:
            for side, coach, race, opponent, opponent_race in sides:
                w = g.home_score if side == HOME else 1.0 - g.home_score
                rows.append(CalculationRow(g.game_id, side, coach, race, g.variant, opponent, opponent_race,
                                           g.played_at, event.label, w, False, reason))
                event.totals.setdefault((coach, race, g.variant), KeyTotals()).games_played += 1
            continue
        k = k_value(g.event_coaches, major=g.major, non_major_max=config.non_major_max, round_k=config.round_k,
                    major_coaches=config.major_coaches, k_scale=config.k_scale)
        s = home_score(g.home_score, g.conceded_by, conceder_loses=config.conceder_loses)
        before = {home_key: ratings.get(home_key, config.start_rating), away_key: ratings.get(away_key, config.start_rating)}
        after = {}
        for (side, coach, race, opponent, opponent_race), opponent_key in zip(sides, (away_key, home_key)):
            key = (coach, race, g.variant)
            w = s if side == HOME else 1.0 - s
            r0, rc = before[key], before[opponent_key]
            rt = rating_change(r0, rc, w, k)
            after[key] = rating_after(r0, rt)
            rows.append(CalculationRow(g.game_id, side, coach, race, g.variant, opponent, opponent_race, g.played_at,
                                       event.label, w, True, None, r0, rc, win_probability(r0, rc), k, rt))
            totals = event.totals.setdefault(key, KeyTotals())
            if not totals.nt:
                totals.rl, totals.is_start = r0, key not in ratings
            totals.rn = after[key]
            totals.nt += 1
            totals.games_played += 1
            totals.wt += w
            totals.wet += win_probability(r0, rc)
            totals.rtt += rt
            totals.rc_sum += rc
            totals.last_day = day
        ratings.update(after)
    for event in events.values():
        summaries += summaries_of(event)
    return ratings, rows, summaries


@st.composite
def events(draw, event_id):
    first = draw(st.integers(0, 12))
    return {
        "event_id": event_id, "first": first, "days": draw(st.integers(1, 3)),
        "event_end": draw(st.sampled_from([None, (DAY + timedelta(days=first)).date(),
                                           (DAY + timedelta(days=first + draw(st.integers(1, 3)))).date()])),
        "event_coaches": draw(st.sampled_from([0, 4, 20, 33, 80])), "major": draw(st.booleans()),
        "sanctioned": draw(st.sampled_from([True] * 5 + [False])),
    }


@st.composite
def histories(draw):
    """Games of a few overlapping events over three weeks: byes, forfeits, conceded games, unranked
    and excluded races, two variants, game ids in any order against the time of play."""
    pool = [draw(events(event_id)) for event_id in range(1, draw(st.integers(1, 5)) + 1)]
    n = draw(st.integers(1, 40))
    ids = draw(st.lists(st.integers(1, 10_000), min_size=n, max_size=n, unique=True))
    games = []
    for game_id in ids:
        event = draw(st.sampled_from(pool))
        home, away = draw(st.lists(st.integers(1, 7), min_size=2, max_size=2, unique=True))
        kind = draw(st.sampled_from([PLAYED] * 8 + [FORFEIT, BYE]))
        day = event["first"] + draw(st.integers(0, event["days"] - 1))
        games.append(GameRecord(
            game_id=game_id, played_at=DAY + timedelta(days=day, hours=draw(st.sampled_from([9, 13, 13, 16]))),
            event_id=event["event_id"], variant=draw(st.sampled_from(VARIANTS + VARIANTS[:1])),
            home=home, home_race=draw(st.sampled_from(["orc", "elf", "goblin"])),
            away=None if kind == BYE else away,
            away_race=None if kind == BYE else draw(st.sampled_from(["orc", "dwarf"])),
            home_score=draw(st.sampled_from([0.0, 0.5, 1.0])), event_coaches=event["event_coaches"],
            major=event["major"], sanctioned=event["sanctioned"], home_race_ranked=draw(st.sampled_from([True] * 9 + [False])),
            kind=kind, conceded_by=draw(st.sampled_from([None] * 4 + [HOME, AWAY])), event_end=event["event_end"],
        ))
    return games


configs = st.builds(
    EloConfig, start_rating=st.sampled_from([150.0, 0.0, -35.5]), non_major_max=st.sampled_from([32, 30, 5]),
    round_k=st.booleans(), conceder_loses=st.booleans(), per_race=st.booleans(), k_scale=st.sampled_from([1.0, 0.5, 2.25]),
    variants=st.sampled_from([None, ("bb2020",)]), excluded_races=st.sampled_from([(), ("goblin",)]),
)

# ratings before the history, some far apart (a favourite gains nothing), some below zero
known_ratings = st.dictionaries(
    st.tuples(st.integers(1, 7), st.sampled_from(["orc", "elf", "dwarf", None]), st.sampled_from(VARIANTS)),
    st.integers(-50_000, 300_000).map(lambda cents: cents / 100), max_size=8,
)


@settings(max_examples=120, deadline=None)
@given(histories(), configs, known_ratings)
def test_run_history_equals_the_calculator_game_by_game(games, config, ratings):
    result = run_history(games, config, EloState(ratings=dict(ratings)))
    assert (result.state.ratings, result.rows, result.summaries) == by_hand(games, config, ratings)


@settings(max_examples=60, deadline=None)
@given(histories(), configs, st.integers(1, 39))
def test_chunks_applied_in_place_equal_the_calculator_game_by_game(games, config, split):
    ordered = sorted(games, key=lambda g: (g.played_at, g.game_id))
    state = EloState()
    first = run_history(ordered[:split], config, state, in_place=True)
    second = run_history(ordered[split:], config, state, in_place=True)
    ratings, rows, _ = by_hand(games, config, {})
    assert (state.ratings, first.rows + second.rows) == (ratings, rows)


def test_a_rating_below_zero_is_rounded_half_away_from_zero():
    # K = 0 (no NAF coaches): the CR is only kept to 0.01, and −100.005 is a half
    game = GameRecord(game_id=1, played_at=DAY, event_id=1, variant="bb2020", home=1, home_race="orc", away=2,
                      away_race="orc", home_score=1.0, event_coaches=0)
    state = EloState(ratings={(1, "orc", "bb2020"): -100.005})
    assert run_history([game], EloConfig(), state).state.ratings[(1, "orc", "bb2020")] == -100.01
