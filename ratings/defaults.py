"""The four rating systems the site ships with (defaults of ../shared/spec/ratings.md)."""

DEFAULT_SYSTEMS = [
    {
        "slug": "elo",
        "name": "NAF Elo",
        "method": "naf_elo",
        "per_race": True,
        "parameters": {},
        "excluded_races": [],
        "inactive_after_months": 24,
        "display_order": 1,
        "description": "Coach Rating per coach, race and variant, updated after every sanctioned event.",
    },
    {
        "slug": "glicko",
        "name": "NAF Glicko",
        "method": "glicko",
        "per_race": True,
        "parameters": {"period": "month"},
        "excluded_races": [],
        "inactive_after_months": None,
        "display_order": 2,
        "description": "Glicko-2 per coach, race and variant, monthly rating periods; ranked while phi ≤ 100.",
    },
    {
        "slug": "global-glicko",
        "name": "Global Glicko",
        "method": "glicko",
        "per_race": False,
        "parameters": {"period": "two_weeks"},
        "excluded_races": ["goblin", "halfling", "ogre"],
        "inactive_after_months": None,
        "display_order": 3,
        "description": "Glicko-2 per coach and variant, all races pooled except Goblin, Halfling and Ogre; "
        "two-week periods, refreshed daily.",
    },
    {
        "slug": "knsb",
        "name": "KNSB list rating",
        "method": "knsb",
        "per_race": False,
        "parameters": {},
        "excluded_races": [],
        "inactive_after_months": 24,
        "display_order": 4,
        "description": "The Dutch chess federation's list rating: monthly lists, depot and start ratings, "
        "performance-rating limits.",
    },
]
