"""The accuracy report of a KNSB result corrected after a list had rated it (the correction of
test_late_results): one game, with the prediction made before it and the result as it stands."""
import datetime as dt
import math

import pytest

from assurance.accuracy.report import accuracy_report_compute
from rating_engines.common import Reason
from rating_engines.knsb import expected_score
from ratings.models import CalculationRow, RatingSystem
from tests.ratings.test_late_results import clock, coaches, corrected, history  # noqa: F401 (its fixtures)

pytestmark = pytest.mark.django_db


@pytest.mark.usefixtures("corrected")
def test_a_result_corrected_after_its_list_counts_once_with_the_prediction_made_before_it():
    """Anna (1800) v Dirk (1750), a draw rated by the list of 1 March, became her 3-2 win on 10 March:
    its counted draw, the row taking it back and the counted win are one game, at We(50), won."""
    knsb = RatingSystem.objects.get(slug="knsb")
    rows = CalculationRow.objects.filter(system=knsb, game__event__name="February Cup", side="home").order_by("pk")
    assert [(r.w, r.counted, r.reason) for r in rows] == [(0.5, True, ""), (0.5, False, Reason.REVERSED), (1.0, True, "")]
    report = accuracy_report_compute(system=knsb, start=dt.date(2024, 2, 17), end=dt.date(2024, 2, 17))
    we = expected_score(50)
    assert report["games"] == 1 and report["draws"] == 0.0
    assert report["overall"]["method"]["log_loss"] == pytest.approx(-math.log(we))
    assert report["overall"]["method"]["brier"] == pytest.approx((1 - we) ** 2)
