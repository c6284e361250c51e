"""The page of how well the systems predict: a read of the stored accuracy reports and the latest
parameter search (the ratings' models, written by assurance.accuracy and assurance.tuning)."""
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from assurance.accuracy.metrics import DRAW_PRIOR_GAMES, DRAW_PRIOR_RATE, RACE_PRIOR_GAMES
from assurance.accuracy.report import PREDICTORS, accuracy_reports
from assurance.tuning.selectors import parameter_search_latest
from ratingsite import charts
from ratingsite.languages import on_page

# each split of a report's figures: its table's caption and first column's header, and whether its
# rows' labels are words to translate (the major split's) rather than names or years
SPLITS = {
    "variant": (gettext_lazy("%(name)s: log loss by variant (0.5 for every game: 0.6931 in each)"), gettext_lazy("Variant"), False),
    "year": (gettext_lazy("%(name)s: log loss by year (0.5 for every game: 0.6931 in each)"), gettext_lazy("Year"), False),
    "major": (gettext_lazy("%(name)s: log loss by major (0.5 for every game: 0.6931 in each)"), gettext_lazy("Major"), True),
}


def _splits(figures: dict) -> list[dict]:
    """The report's splits as the page shows them, in its language."""
    out = []
    for kind, groups in (figures.get("splits") or {}).items():
        caption, header, worded = SPLITS.get(kind, (gettext_lazy("%(name)s: log loss by %(kind)s"), kind, False))
        out.append({
            "caption": str(caption) % {"name": figures["name"], "kind": kind}, "header": header,
            "groups": [{**g, "label": _(g["label"])} if worded else g for g in groups],
        })
    return out


def about_accuracy(request):
    """How well each system predicted the federation's games: the stored reports, a read."""
    reports = [
        {"report": stored, "figures": stored.figures, "chart": _calibration_chart(stored.figures),
         "predictors": [(_(label), stored.figures["overall"][name]) for name, label in PREDICTORS] if stored.figures["games"] else [],
         "splits": _splits(stored.figures)}
        for stored in accuracy_reports()
    ]
    return render(request, "assurance/accuracy.html", {
        "reports": reports, "draw_prior": (DRAW_PRIOR_RATE, DRAW_PRIOR_GAMES),
        "race_prior": RACE_PRIOR_GAMES, "parameter_search": parameter_search_latest(),
    })


def _calibration_chart(report: dict):
    """The calibration of one system's report as a chart: observed against expected score per bin,
    beside the diagonal of a perfect calibration."""
    points = [(b["expected"], b["observed"]) for b in report.get("calibration", []) if b["games"]]
    if not points:
        return None
    return charts.line_chart(
        [charts.Series(_("Observed score"), points, [_bin_title(b) for b in report["calibration"] if b["games"]]),
         charts.Series(_("Perfect calibration"), [(0.0, 0.0), (1.0, 1.0)])],
        title=_("%(name)s: calibration") % {"name": report["name"]},
        description=_("Mean observed score against mean expected score, in ten bins"),
        x_label=_("Expected score"), y_label=_("Observed score"),
    )




def _bin_title(bin_: dict) -> str:
    """What a calibration point says on hover, its figures as the page's language writes them."""
    return _("%(low)s–%(high)s: expected %(expected)s, observed %(observed)s, %(games)s games") % {
        "low": on_page(f"{bin_['low']:.1f}"), "high": on_page(f"{bin_['high']:.1f}"),
        "expected": on_page(f"{bin_['expected']:.3f}"), "observed": on_page(f"{bin_['observed']:.3f}"), "games": f"{bin_['games']:,}",
    }
