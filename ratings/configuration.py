"""From a stored rating system to its engine: which module, which validated configuration."""
from importlib import import_module

from django.core.exceptions import ValidationError

from ratings.models import Method, RatingSystem
from ratings.replay import ListRules

ENGINE_MODULES = {
    Method.NAF_ELO: ("ratings.engines.naf_elo", "EloConfig"),
    Method.GLICKO: ("ratings.engines.glicko", "GlickoConfig"),
    Method.KNSB: ("ratings.engines.knsb", "KnsbConfig"),
}


def engine(method: str):
    """(engine module, its configuration class) for a method."""
    module_name, config_name = ENGINE_MODULES[method]
    module = import_module(module_name)
    return module, getattr(module, config_name)


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


def engine_for(system: RatingSystem):
    """(engine module, validated configuration) of a stored system."""
    module, _ = engine(system.method)
    config = build_config(
        method=system.method,
        per_race=system.per_race,
        parameters=system.parameters,
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
