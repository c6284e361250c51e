"""The about page's figures drawn from a system's configuration: idle periods until a Glicko rank
lapses, and what a period is called."""
from __future__ import annotations

import math

from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from rating_engines import glicko, knsb, naf_elo
from rating_pages.presenters import rules
from ratings.choices import Method
from ratingsite import charts


def idle_periods_until_unranked(config, phi: float, sigma: float | None = None) -> int:
    """How many idle periods until φ rises above the inactive limit (0: already unranked)."""
    sigma = config.sigma0 if sigma is None else sigma
    limit = config.inactive_phi
    if phi > limit:
        return 0
    step = glicko.decay_step(sigma)
    if config.decay_cap <= limit:
        return -1  # never: the cap keeps φ within the limit
    periods = int((limit * limit - phi * phi) // step) + 1
    while glicko.decay(glicko.GlickoRating(0.0, phi, sigma), periods=periods - 1, phi_cap=config.decay_cap).phi > limit:
        periods -= 1
    return periods


# A Glicko rating period's words, whole: (one period, one idle period, idle periods, a table's "Idle
# periods" heading, the calculator's label, periods), so a translation never builds a plural from a noun.
PERIOD_WORDS = {
    "month": (
        pgettext_lazy("rating period", "month"), _("idle month"), _("idle months"), _("Idle months"),
        _("Idle months before this one (decay)"), pgettext_lazy("rating periods", "months"),
    ),
    "two_weeks": (
        pgettext_lazy("rating period", "two-week period"), _("idle two-week period"), _("idle two-week periods"),
        _("Idle two-week periods"), _("Idle two-week periods before this one (decay)"),
        pgettext_lazy("rating periods", "two-week periods"),
    ),
    "event": (
        pgettext_lazy("rating period", "event"), _("idle event"), _("idle events"), _("Idle events"),
        _("Idle events before this one (decay)"), pgettext_lazy("rating periods", "events"),
    ),
}


def period_name(config) -> str:
    """A Glicko system's rating period, as a noun: "month"."""
    return str(PERIOD_WORDS[config.period][0])


def idle_periods(config, count: int = 2) -> str:
    """`count` idle periods' words without the figure: "idle month", "idle months"."""
    return str(PERIOD_WORDS[config.period][1 if count == 1 else 2])


def idle_periods_heading(config) -> str:
    return str(PERIOD_WORDS[config.period][3])


def idle_periods_label(config) -> str:
    """The calculator's label of the idle periods before the one calculated."""
    return str(PERIOD_WORDS[config.period][4])


def asked_phi(query: str) -> tuple[float | None, str | None]:
    """The φ the about page's lapse question asks about (None if none), and the message refusing it."""
    if not query:
        return None, None
    try:
        phi = float(query)
        if not 0 < phi <= 2000 or not math.isfinite(phi):
            raise ValueError
    except ValueError:
        return None, gettext("“%(query)s” is not a φ: give a number above 0 and at most 2000.") % {"query": query}
    return phi, None


def sections(configured, phi: float | None) -> list[dict]:
    """One section per system: its parameters, rank and provisional rules, and its method's figures."""
    out = []
    for system, config in configured:
        section = {
            "system": system, "config": config, "params": parameters(config), "rule": rules.inactive_rule(system, config),
            "provisional": rules.provisional_rule(system),
        }
        section.update(METHOD_FIGURES[system.method](system, config, phi))
        out.append(section)
    return out


def elo_figures(system, config, phi: float | None) -> dict:
    """K against the number of coaches at an event, and a major's K."""
    return {
        "k_rows": [(n, config.k(n, major=False)) for n in (4, 8, 12, 16, 20, 24, 28, 32, 48, 60)],
        "k_major": config.k(0, major=True),
    }


def knsb_figures(system, config, phi: float | None) -> dict:
    """k against Nv at 1800, and against the rating at Nv 100."""
    return {
        "k_rows": [(nv, knsb.k_factor(1800, nv)) for nv in (1, 6, 10, 20, 40, 60, 74, 75, 100)],
        "k_band": [(r, knsb.k_factor(r, 100)) for r in (2000, 2100, 2200, 2300, 2400, 2500)],
    }


def parameters(config) -> list[tuple[str, str]]:
    params = config.as_params()
    out = []
    for name, value in params.items():
        if name == "initial_list":
            value = gettext("%(count)s imported entries") % {"count": len(value)} if value else gettext("none")
        elif isinstance(value, list):
            value = ", ".join(map(str, value)) or gettext("none")
        elif value is None:
            value = gettext("none (default)")
        out.append((name, str(value)))
    return out


def glicko_figures(system, config, phi: float | None) -> dict:
    """φ's growth when idle and the idle periods until the rank lapses, as charts and tables."""
    unit = period_name(config)
    figures = {
        **_growth(system, config), **_lapse(system, config), "unit": unit, "step": glicko.decay_step(config.sigma0),
        "idle_one": idle_periods(config, 1), "idle_many": idle_periods(config), "idle_heading": idle_periods_heading(config),
    }
    if phi is not None:
        figures["asked"] = (phi, idle_periods_until_unranked(config, phi))
    return figures


def _growth(system, config) -> dict:
    horizon = 120 if config.period == "month" else 240
    sigma = config.sigma0
    starts = [p for p in (30, 50, 60, 90) if p < config.inactive_phi] or [config.inactive_phi / 2]
    series = []
    for start in starts:
        points = [(n, glicko.decay(glicko.GlickoRating(0.0, start, sigma), periods=n, phi_cap=config.decay_cap).phi)
                  for n in range(0, horizon + 1, 2)]
        series.append(charts.Series(gettext("from φ %(phi)s") % {"phi": f"{start:g}"}, points))
    idle = idle_periods(config)
    growth = charts.line_chart(
        series,
        title=gettext("%(system)s: φ growth when idle") % {"system": system.name},
        description=gettext(
            "φ after 0 to %(horizon)s %(idle)s at σ = %(sigma)s, from several starting values; φ² grows by "
            "(173.7178·σ)² each %(unit)s, capped at %(cap)s. The dashed line is the rank limit "
            "%(limit)s. The table gives the same figures."
        ) % {
            "horizon": horizon, "idle": idle, "sigma": f"{sigma:g}", "unit": period_name(config),
            "cap": f"{config.decay_cap:g}", "limit": f"{config.inactive_phi:g}",
        },
        x_label=idle, y_label="φ",
        guides=((config.inactive_phi, gettext("rank limit φ %(limit)s") % {"limit": f"{config.inactive_phi:g}"}),),
    )
    growth_rows = [
        (n, [glicko.decay(glicko.GlickoRating(0.0, s, sigma), periods=n, phi_cap=config.decay_cap).phi for s in starts])
        for n in (0, 6, 12, 18, 24, 36, 48, 60, 90, 120) if n <= horizon
    ]
    return {"growth_chart": growth, "growth_starts": starts, "growth_rows": growth_rows}


def _lapse(system, config) -> dict:
    lapse_starts = [p for p in range(30, int(config.inactive_phi) + 1, 10)]
    lapse = [(p, idle_periods_until_unranked(config, p)) for p in lapse_starts]
    lapse_chart = charts.line_chart(
        [charts.Series(gettext("idle periods until no rank"), [(p, n) for p, n in lapse if n >= 0])],
        title=gettext("%(system)s: %(idle)s until the rank lapses") % {"system": system.name, "idle": idle_periods(config)},
        description=gettext(
            "How many %(periods)s without a game take φ above %(limit)s, for a starting φ from %(first)s to "
            "%(limit)s (σ = %(sigma)s). Same figures in the table."
        ) % {
            "periods": PERIOD_WORDS[config.period][5], "limit": f"{config.inactive_phi:g}",
            "first": lapse_starts[0] if lapse_starts else 0, "sigma": f"{config.sigma0:g}",
        },
        x_label=gettext("φ now"), y_label=idle_periods(config),
    )
    return {"lapse_chart": lapse_chart, "lapse_rows": lapse}


def expected_score_figures(configured):
    """We against the rating difference: NAF Elo (its own 150-point scale), KNSB and Glicko E."""
    methods = {system.method: (system, config) for system, config in reversed(configured)}
    series, rows = [], []
    diffs = list(range(-600, 601, 25))
    if Method.KNSB in methods:
        config = methods[Method.KNSB][1]
        series.append(charts.Series(
            gettext("KNSB We = Φ(d/σ)"), [(d, knsb.expected_score(d, sigma=config.sigma, table=config.we_table)) for d in diffs]
        ))
    if Method.GLICKO in methods:
        opponent = glicko.GlickoRating(0.0, 60.0, methods[Method.GLICKO][1].sigma0)
        series.append(charts.Series(gettext("Glicko E, opponent φ 60"), [(d, glicko.expected_score(d, opponent)) for d in diffs]))
    if Method.NAF_ELO in methods:
        series.append(charts.Series(gettext("NAF Elo P (its 150-point scale)"), [(d, naf_elo.win_probability(d, 0.0)) for d in diffs]))
    if not series:
        return None, []
    chart = charts.line_chart(
        series, title=gettext("Expected score against the rating difference"),
        description=gettext(
            "Expected score (0 to 1) of the better or worse rated side for a rating difference from −600 to 600, "
            "under each method as configured. The table gives the same figures every 100 points."
        ),
        x_label=gettext("rating difference R0 − Rc"), y_label=gettext("expected score"),
        guides=((0.5, "0.5"),),
    )
    for d in range(-600, 601, 100):
        rows.append((d, [dict(s.points)[d] for s in series]))
    return {"chart": chart, "labels": [s.label for s in series]}, rows


# each method's figures on the about page, beside its formulas (rating_pages/about/_<method>.html)
METHOD_FIGURES = {Method.NAF_ELO: elo_figures, Method.GLICKO: glicko_figures, Method.KNSB: knsb_figures}
