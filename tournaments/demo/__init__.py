"""A generated federation for the demo site: coaches from many countries, ten-plus years of
sanctioned tournaments with majors, Swiss rounds, scores and awards.

generate_federation() is pure and deterministic: the same arguments give the same federation, drawn
from one random.Random(seed) as of a fixed day (SEEDED_ON), then moved by whole weeks to the seeding
day it is given, never the clock: the same seed and seeding day give the same federation, and a later
seeding day the same one later, weekdays kept. demo_federation_create() writes it as of the seeding
day (by default the clock's today); a second run with the same seed finds its events by source
("demo:<seed>:<n>") and adds nothing.

The package, by reason: world.py what it is drawn from (countries, cities, races, years); draws.py
the shapes drawn; play.py each event's tournament (Swiss rounds, games, awards); federation.py the
whole federation in memory; seeding.py its rows written; logins.py the demo's logins.
"""
from .federation import generate_federation, seeding_shift
from .logins import DEMO_PASSWORD, demo_logins_create
from .seeding import DemoReport, demo_federation_create, demo_late_reports_sanction
from .world import FIRST_NUMBER

__all__ = [
    "DEMO_PASSWORD", "FIRST_NUMBER", "DemoReport", "demo_federation_create", "demo_late_reports_sanction",
    "demo_logins_create", "generate_federation", "seeding_shift",
]
