"""The fast history runner against the calculator: on random histories, run_history and
close_periods give the ratings, summaries and rows that the calculator's functions give when
applied by hand, period by period (ratings.md section 2)."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rating_engines.common import AWAY, BYE, FORFEIT, HOME, CountingRule, GameRecord
from rating_engines.glicko import (
    GlickoConfig,
    GlickoRating,
    GlickoState,
    calendar_period,
    close_periods,
    decay,
    decayed_phi,
    expected_score,
    g_factor,
    game_change,
    initial_for_new_race,
    rate,
    ratings_as_of,
    run_history,
)

V = "bb2020"
START = datetime(2022, 1, 3)
AFTER_ALL = date(2023, 1, 2)  # a Monday after every game: the list "as of" it holds every period
EXACT = 1e-9  # mu and phi: the same arithmetic, up to the last bits of exp
# sigma: the volatility iteration stops within 1e-6 of its root, so an input a bit apart may stop a step apart
SIGMA = 1e-6


@st.composite
def histories(draw):
    """Games over four months, events of three days: new races, byes, forfeits, a second variant."""
    games = []
    for game_id in range(1, draw(st.integers(1, 40)) + 1):
        day = draw(st.integers(0, 120))
        home, away = draw(st.lists(st.integers(1, 6), min_size=2, max_size=2, unique=True))
        kind = draw(st.sampled_from(["played"] * 10 + [FORFEIT, BYE]))
        games.append(GameRecord(
            game_id=game_id,
            played_at=START + timedelta(days=day, hours=draw(st.sampled_from([9, 13, 17]))),
            event_id=day // 3 + 1, variant=draw(st.sampled_from([V, V, V, "sevens"])), home=home,
            home_race=draw(st.sampled_from(["orc", "elf", "dwarf", "goblin"])),
            away=None if kind == BYE else away,
            away_race=None if kind == BYE else draw(st.sampled_from(["orc", "human", "elf"])),
            home_score=draw(st.sampled_from([0.0, 0.5, 1.0])), kind=kind,
            event_end=(START + timedelta(days=day // 3 * 3 + 2)).date(),
        ))
    return sorted(games, key=lambda g: (g.played_at, g.game_id))


configs = st.builds(
    GlickoConfig, per_race=st.booleans(), period=st.sampled_from(["month", "two_weeks", "event"]),
    tau=st.sampled_from([0.2, 0.5]), phi0=st.sampled_from([350.0, 500.0]),
    phi_cap=st.sampled_from([None, 300.0]), cross_race_start=st.booleans(),
    excluded_races=st.sampled_from([(), ("goblin",)]),
)

seeded_ratings = st.dictionaries(
    st.tuples(st.integers(1, 6), st.sampled_from(["orc", "elf", "human"])),
    st.builds(GlickoRating, st.floats(1200, 1900), st.floats(40, 350), st.floats(0.04, 0.08)),
    max_size=6,
)


def seeded_state(seeded, config) -> tuple[GlickoState, dict, int]:
    """A state holding the seeded ratings as rated at the end of the period before START."""
    ratings = {(coach, race if config.per_race else None, V): r for (coach, race), r in seeded.items()}
    if config.period == "event":
        index = 0
    else:
        index = calendar_period(START.date(), config).number - 1
    return GlickoState.from_ratings(ratings, period_index=index), ratings, index


def run_fast(games, config, state):
    first = run_history(games, config, state)
    rest = close_periods(first.state, config, date.max)
    return first.rows + rest.rows, first.summaries + rest.summaries, rest.state


# --- the calculator by hand -----------------------------------------------------------------------


class Rated(NamedTuple):
    rating: GlickoRating  # after the key's last period
    period: int  # that period's number


class KeyPeriod(NamedTuple):
    """What the calculator gives one key for one period."""

    key: tuple
    label: str
    start: GlickoRating
    after: GlickoRating
    games: int


@dataclass
class ByHand:
    """Glicko-2 period by period with the calculator's functions, as ratings.md section 2 says it."""

    config: GlickoConfig
    rated: dict[tuple, Rated] = field(default_factory=dict)
    summaries: list[KeyPeriod] = field(default_factory=list)
    rows: dict = field(default_factory=dict)  # (game_id, side) -> the row's figures

    def key(self, coach, race, variant):
        return coach, race if self.config.per_race else None, variant

    def at_start(self, key, number):
        """A rated key at the start of period `number`: decayed for each idle period."""
        rating, last = self.rated[key]
        return decay(rating, periods=number - last - 1, phi_cap=self.config.decay_cap)

    def new_rating(self, key, number, started):
        """A new key's start: from the coach's other ratings in the variant as they stand now."""
        coach, race, variant = key
        config = self.config
        others = {(c, r, v) for c, r, v in (*self.rated, *started) if (c, v) == (coach, variant)}
        existing = [started[k] if k in started else self.at_start(k, number) for k in others]
        if config.cross_race_start and race is not None:
            return initial_for_new_race(existing, mu0=config.mu0, phi0=config.phi0, sigma0=config.sigma0)
        return GlickoRating(config.mu0, config.phi0, config.sigma0)

    def period(self, label, number, games):
        counts = CountingRule.of(self.config)
        started = {}  # key -> rating at the start of the period, in order of the first game
        results = defaultdict(list)  # key -> (opponent key, score, game id, side)
        for g in games:
            if counts.exclusion(g) is not None:
                continue
            home, away = self.key(g.home, g.home_race, g.variant), self.key(g.away, g.away_race, g.variant)
            for k in (home, away):
                if k not in started:
                    started[k] = self.at_start(k, number) if k in self.rated else self.new_rating(k, number, started)
            results[home].append((away, g.home_score, g.game_id, HOME))
            results[away].append((home, 1.0 - g.home_score, g.game_id, AWAY))
        after = {}
        for k, played in results.items():
            me = started[k]
            after[k] = rate(me, [(started[opponent], score) for opponent, score, _, _ in played], tau=self.config.tau)
            for opponent, score, game_id, side in played:
                them = started[opponent]
                self.rows[game_id, side] = (me.mu, them.mu, them.phi, g_factor(them.phi), expected_score(me.mu, them),
                                            game_change(me.mu, after[k].phi, them, score))
            self.summaries.append(KeyPeriod(k, label, me, after[k], len(played)))
        self.rated.update((k, Rated(rating, number)) for k, rating in after.items())

    def history(self, games, first_number):
        """Every period of `games` in order; event periods are numbered on from `first_number`."""
        periods = {}
        for g in games:
            if self.config.period == "event":
                label = f"event:{g.event_id}"
                number = periods[label][0] if label in periods else first_number + len(periods)
            else:
                number, label, _ = calendar_period(g.played_at.date(), self.config)
            periods.setdefault(label, (number, []))[1].append(g)
        for label, (number, period_games) in periods.items():
            self.period(label, number, period_games)


def by_hand(games, config, ratings, index):
    model = ByHand(config, {key: Rated(r, index) for key, r in ratings.items()})
    model.history(games, index + 1)
    return model


# --- the properties -----------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(histories(), configs, seeded_ratings)
def test_summaries_are_the_calculators_period_by_period(games, config, seeded):
    state, ratings, index = seeded_state(seeded, config)
    _, summaries, _ = run_fast(games, config, state)
    model = by_hand(games, config, ratings, index)
    assert_the_models_summaries(summaries, model, config)


def assert_the_models_summaries(summaries, model, config) -> None:
    """Period by period, the summaries hold the calculator's figures (`model`: by_hand's)."""
    assert [(s.coach, s.race, s.variant, s.period, s.nt) for s in summaries] == [
        (*want.key, want.label, want.games) for want in model.summaries]
    for s, want in zip(summaries, model.summaries):
        start, after = want.start, want.after
        assert (s.mu_before, s.phi_before, s.sigma_before) == pytest.approx((start.mu, start.phi, start.sigma), rel=EXACT)
        assert (s.mu, s.phi) == pytest.approx((after.mu, after.phi), rel=EXACT)
        assert s.sigma == pytest.approx(after.sigma, rel=SIGMA)
        assert (s.rl, s.rn) == pytest.approx((config.value(start), config.value(after)), rel=EXACT)


@settings(max_examples=60, deadline=None)
@given(histories(), configs, seeded_ratings)
def test_counted_rows_hold_the_calculators_figures(games, config, seeded):
    state, ratings, index = seeded_state(seeded, config)
    rows, _, _ = run_fast(games, config, state)
    model = by_hand(games, config, ratings, index)
    counted = {(r.game_id, r.side): (r.r0, r.rc, r.opponent_phi, r.g, r.we, r.rt) for r in rows if r.counted}
    assert counted.keys() == model.rows.keys()
    for at, figures in counted.items():
        assert figures == pytest.approx(model.rows[at], rel=EXACT)


@settings(max_examples=60, deadline=None)
@given(histories(), configs, seeded_ratings)
def test_list_after_the_history_is_the_calculators_ratings_decayed(games, config, seeded):
    state, ratings, index = seeded_state(seeded, config)
    _, _, final = run_fast(games, config, state)
    model = by_hand(games, config, ratings, index)
    if config.period == "event":
        latest = final.periods_closed - 1
    else:
        latest = calendar_period(AFTER_ALL, config).number - 1
    expected = {key: decay(r, periods=latest - last, phi_cap=config.decay_cap) for key, (r, last) in model.rated.items()}
    listed = ratings_as_of(final, config, AFTER_ALL)
    assert listed.keys() == expected.keys()
    for key, rating in listed.items():
        want = expected[key]
        assert (rating.mu, rating.phi) == pytest.approx((want.mu, want.phi), rel=EXACT)
        assert rating.sigma == pytest.approx(want.sigma, rel=SIGMA)


@given(st.lists(st.tuples(st.floats(20, 400), st.floats(0.01, 0.2), st.integers(0, 150)), min_size=1, max_size=20),
       st.floats(50, 500))
def test_decay_over_arrays_is_decay_of_each_rating(ratings, cap):
    phi, sigma, periods = (np.array(column) for column in zip(*ratings))
    expected = [decay(GlickoRating(1500, p, s), periods=n, phi_cap=cap).phi for p, s, n in ratings]
    assert decayed_phi(phi, sigma, periods, cap).tolist() == expected
