"""From a stored rating system to its engine: which module, which validated configuration."""
from typing import Any

from django.core.exceptions import ValidationError

from rating_engines import methods
from rating_engines.glicko import GlickoConfig
from rating_engines.knsb import KnsbConfig
from rating_engines.naf_elo import EloConfig
from rating_engines.protocol import Engine
from ratings.models import Method, RatingSystem
from ratings.replay import ListRules
from tournaments.models import Coach

ENGINE_MODULES: dict[str, Engine[Any, Any]] = {
    Method.NAF_ELO: methods.NAF_ELO,
    Method.GLICKO: methods.GLICKO,
    Method.KNSB: methods.KNSB,
}
CONFIG_CLASSES: dict[str, type] = {Method.NAF_ELO: EloConfig, Method.GLICKO: GlickoConfig, Method.KNSB: KnsbConfig}


def engine(method: str):
    """(engine module, its configuration class) for a method."""
    return ENGINE_MODULES[method], CONFIG_CLASSES[method]


def build_config(*, method: str, per_race: bool, parameters: dict, variants=None, excluded_races=()):
    """The engine configuration for these settings; raises ValidationError naming a bad parameter."""
    _, config_class = engine(method)
    params = dict(parameters or {})
    for reserved in ("per_race", "variants", "excluded_races"):
        if reserved in params:
            raise ValidationError({"parameters": f"'{reserved}' is set on the rating system itself, not in its parameters"})
    params.update(per_race=per_race, variants=tuple(variants) if variants else None, excluded_races=tuple(excluded_races))
    try:
        return config_class.from_params(params)
    except (TypeError, ValueError) as exc:
        raise ValidationError({"parameters": str(exc)}) from exc


def _initial_list_by_id(parameters: dict) -> dict:
    """A KNSB imported list names coaches by federation number; the engines know them by id.

    A listed number the record does not hold (yet) is left out until that coach is added.
    """
    entries = parameters.get("initial_list")
    if not entries or not isinstance(entries, (list, tuple)):
        return parameters
    numbers = {entry[0] for entry in entries if isinstance(entry, (list, tuple)) and entry}
    ids = dict(Coach.objects.filter(number__in=numbers).values_list("number", "pk"))
    by_id = [[ids[entry[0]], *entry[1:]] for entry in entries if entry and entry[0] in ids]
    return {**parameters, "initial_list": by_id}


def engine_for(system: RatingSystem):
    """(engine module, validated configuration) of a stored system."""
    module, _ = engine(system.method)
    parameters = system.parameters
    if system.method == Method.KNSB:
        parameters = _initial_list_by_id(parameters or {})
    config = build_config(
        method=system.method,
        per_race=system.per_race,
        parameters=parameters,
        variants=sorted(system.variants.values_list("slug", flat=True)),
        excluded_races=sorted(system.excluded_races.values_list("slug", flat=True)),
    )
    return module, config


def list_rules(system: RatingSystem, config) -> ListRules:
    """How the system's lists rank keys."""
    if system.method == Method.GLICKO:
        return ListRules(
            glicko=True,
            inactive_phi=config.inactive_phi,
            phi_multiplier=config.value_phi_multiplier,
            phi_cap=config.phi_cap if config.phi_cap is not None else config.phi0,
            period_days=14 if config.period == "two_weeks" else None,
        )
    return ListRules(glicko=False, inactive_after_months=system.inactive_after_months)
