"""The current ratings of one variant (and of one race of it) come in RANKING_ORDER read by their own
index's order (CurrentRating.VARIANT_ORDER: ranked first, by value, the coach breaking ties), which
holds no rank: the same rows in the same order whatever the values, ties and unranked keys."""
import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ratings.models import RANKING_ORDER, CurrentRating, RatingSystem
from tests.factories import CoachFactory
from tournaments.models import Race, Variant

pytestmark = pytest.mark.django_db

# a key: coach, race (0-1), variant (0-1), a value from few (ties), ranked or not
KEYS = st.lists(
    st.tuples(st.integers(0, 7), st.integers(0, 1), st.integers(0, 1), st.sampled_from([140.0, 150.0, 150.5, 162.25]), st.booleans()),
    max_size=30, unique_by=lambda key: key[:3],
)


def ranks(keys, same) -> list[int | None]:
    """Each key's rank among the ranked keys that `same` puts beside it, as a run gives them: one
    more than the ranked keys of higher value (equal values share a rank); none when unranked."""
    return [
        1 + sum(1 for other in keys if other[4] and same(other, key) and other[3] > key[3]) if key[4] else None
        for key in keys
    ]


def shown(ratings) -> list[tuple]:
    return [(r.overall_rank, r.value, r.coach_id) for r in ratings]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(KEYS)
def test_one_variant_and_one_race_read_by_value_come_in_ranking_order(keys):
    coaches = CoachFactory.create_batch(8)
    races, variants = list(Race.objects.order_by("pk")[:2]), list(Variant.objects.order_by("pk")[:2])
    system = RatingSystem.objects.get(slug="elo")
    with transaction.atomic():
        race_ranks = ranks(keys, lambda a, b: a[1:3] == b[1:3])
        overall = ranks(keys, lambda a, b: a[2] == b[2])
        CurrentRating.objects.bulk_create(
            CurrentRating(
                system=system, coach=coaches[coach], race=races[race], variant=variants[variant], value=value,
                rank=race_ranks[i], overall_rank=overall[i],
            )
            for i, (coach, race, variant, value, _) in enumerate(keys)
        )
        ranking = CurrentRating.objects.filter(system=system).order_by(*RANKING_ORDER)
        for variant in variants:
            read = ranking.of_variant(variant)
            assert "ranked" in str(read.query)  # read on the index's order, not the ranks'
            # a coach's races of equal value in one variant: neither order decides between them
            assert shown(read) == shown(ranking.filter(variant=variant))
            for race in races:
                assert list(read.filter(race=race)) == list(ranking.filter(variant=variant, race=race))
        assert all(r.ranked == (r.rank is not None) for r in ranking)
        transaction.set_rollback(True)
