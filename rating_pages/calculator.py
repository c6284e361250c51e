"""The calculator: the engines' own formulas applied to the results a visitor types in; nothing is
stored. The options start as each method's configured system has them (calculator_forms)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from rating_engines import glicko, knsb, naf_elo
from rating_pages.presenters import about
from ratings.configuration import engine_for
from ratings.selectors import public_systems

if TYPE_CHECKING:
    from ratings.models import RatingSystem


def system_configs() -> list[tuple[RatingSystem, object]]:
    """Every active system with its validated engine configuration, in display order."""
    return [(system, engine_for(system)[1]) for system in public_systems()]


def calculator_configs() -> dict:
    """method -> (system, configuration) the calculator uses: the first active system of each
    method, per-race Glicko before pooled."""
    out = {}
    for system, config in sorted(system_configs(), key=lambda item: not item[0].per_race):
        out.setdefault(system.method, (system, config))
    return out


def calculate_elo(config, *, rating: float, results, coaches: int, major: bool) -> dict:
    """NAF Elo, game after game: each game starts from the rating the previous one produced."""
    k = config.k(coaches, major=major)
    rows, current = [], rating
    for result in results:
        opponent, w = result.rc, result.w
        we = naf_elo.win_probability(current, opponent)
        after = naf_elo.update(current, opponent, w, k)
        rows.append({"r0": current, "rc": opponent, "w": w, "we": we, "w_we": w - we, "k": k, "rt": k * (w - we), "rn": after})
        current = after
    nt = len(rows)
    wt, wet = sum(r["w"] for r in rows), sum(r["we"] for r in rows)
    return {
        "rows": rows, "k": k, "rl": rating, "rn": current, "nt": nt, "wt": wt, "wet": wet, "w_we": wt - wet,
        "rtt": sum(r["rt"] for r in rows), "rct": sum(r["rc"] for r in rows) / nt, "wt_percent": 100 * wt / nt,
        "coaches": coaches, "major": major, "round_k": config.round_k, "non_major_max": config.non_major_max,
        "major_coaches": config.major_coaches,
    }


def calculate_glicko(
    config, *, mu: float, phi: float, sigma: float, results, opponent_phi: float, idle_periods: int = 0,
    new_race: bool = False, existing_races=(),
) -> dict:
    """Glicko-2, one rating period with every result against the opponents' ratings as given.

    The period starts from (mu, phi, sigma) after `idle_periods` of decay, or for a new race from the
    coach's existing race ratings (the engine's cross-race start, sigma as σ0)."""
    entered = None
    existing = list(existing_races)
    if new_race:
        player = glicko.initial_for_new_race(
            existing if config.cross_race_start else [], mu0=config.mu0, phi0=config.phi0, sigma0=sigma,
        )
    else:
        entered = glicko.GlickoRating(mu, phi, sigma)
        player = glicko.decay(entered, periods=idle_periods, phi_cap=config.decay_cap)
    opponents = [(glicko.GlickoRating(r.rc, r.phi if r.phi is not None else opponent_phi, config.sigma0), r.w) for r in results]
    start = {
        "before": player, "entered": entered, "idle_periods": idle_periods, "decay_cap": config.decay_cap,
        "period_name": about.period_name(config), "idle_words": about.idle_periods(config, idle_periods),
        "new_race": new_race, "existing": existing,
        "cross_race_start": config.cross_race_start, "tau": config.tau,
    }
    try:
        after = glicko.rate(player, opponents, tau=config.tau)
    except ArithmeticError:  # extreme input: E of exactly 0 or 1 leaves v infinite, or σ' does not converge
        return {**start, "failed": True}
    rows = []
    for opponent, w in opponents:
        e = glicko.expected_score(player.mu, opponent)
        rows.append({"r0": player.mu, "rc": opponent.mu, "opponent_phi": opponent.phi, "g": glicko.g_factor(opponent.phi),
                     "w": w, "we": e, "w_we": w - e, "rt": glicko.game_change(player.mu, after.phi, opponent, w)})
    nt = len(rows)
    wt, wet = sum(r["w"] for r in rows), sum(r["we"] for r in rows)
    return {
        **start, "failed": False, "rows": rows, "after": after, "rl": config.value(player), "rn": config.value(after),
        "nt": nt, "wt": wt, "wet": wet, "w_we": wt - wet, "rtt": after.mu - player.mu, "wt_percent": 100 * wt / nt,
        "active": config.is_active(after), "multiplier": config.value_phi_multiplier, "inactive_phi": config.inactive_phi,
    }


def calculate_knsb(config, *, rl: float, nv: int, results, junior: bool = False) -> dict:
    """KNSB, one list period; Nv 0 means unrated: a start rating once the depot holds enough games.

    A result with its own R0 (and Nv) is a late game: it keeps the older list's numbers."""
    if nv == 0:
        start = knsb.start_rating(
            [(r.rc, r.w) for r in results], sigma=config.sigma, min_games=config.depot_min_games,
            nv_cap=config.nv_cap,
        )
        if start is None:
            return {"start": None, "needed": config.depot_min_games, "nt": len(results)}
        rows = [{"rc": g.rc, "w": g.w, "wx": wx} for g, wx in zip(start.games, start.wx)]
        return {
            "start": start, "rows": rows, "rn": start.rs, "nv": start.nv, "nt": start.nt, "wt": start.wt,
            "rct": start.rct, "wxt": start.wxt, "extra_remise": start.extra_remise, "wt_percent": 100 * start.wt / start.nt,
        }
    period = knsb.rate_period(
        rl, nv, [knsb.PeriodGame(r.r0, r.rc, r.w, r.nv) for r in results], junior=junior, sigma=config.sigma,
        we_table=config.we_table, lpr_margin=config.lpr_margin, nv_cap=config.nv_cap,
    )
    rows = [{"r0": row.r0, "rc": row.rc, "w": row.w, "we": row.we, "w_we": row.w - row.we, "k": row.k, "rt": row.rt,
             "wx": row.wx, "late": r.r0 is not None or r.nv is not None, "list_nv": nv if r.nv is None else r.nv}
            for row, r in zip(period.rows, results)]
    return {
        "start": False, "rows": rows, "rl": period.rl, "rn": period.rn, "nv": period.nv, "nv_before": nv,
        "limitation": period.limitation, "nt": period.nt, "wt": period.wt, "wet": period.wet,
        "w_we": period.wt - period.wet, "rtt": period.rtt, "rct": period.rct, "wxt": period.wxt, "lpr": period.lpr,
        "extra_remise": period.extra_remise, "wx_extra": period.wx_extra, "wt_percent": period.wt_percent,
        "late": any(row["late"] for row in rows), "junior": junior, "lpr_margin": config.lpr_margin,
        "we_table": config.we_table,
    }


