"""What the API answers: typed schemas, from which its OpenAPI 3.1 document is generated. Figures
are numbers rounded as the pages and exports show them (a rating to its system's decimals, μ and φ
to 2, σ to 6); dates are ISO 8601; names are what the public sees of a coach."""
from __future__ import annotations

import datetime as dt

from ninja import Schema


class Named(Schema):
    slug: str
    name: str


class CoachRef(Schema):
    number: int
    name: str


class Page(Schema):
    next_cursor: str | None
    next: str | None


class System(Schema):
    slug: str
    name: str
    method: str
    per_race: bool
    description: str
    inactive_after_months: int | None
    parameters: dict
    variants: list[Named]
    recalculated_at: dt.datetime | None


class Rating(Schema):
    system: str
    coach: CoachRef
    race: Named | None
    variant: Named
    rating: float
    mu: float | None
    phi: float | None
    sigma: float | None
    nv: int | None
    rank: int | None
    overall_rank: int | None
    games: int
    wins: int
    draws: int
    losses: int
    last_played: dt.date | None


class RatingPage(Page):
    items: list[Rating]


class Coach(Schema):
    number: int
    name: str
    nationality: str | None
    member_since: int | None


class CoachPage(Page):
    items: list[Coach]


class CoachDetail(Coach):
    ratings: list[Rating]


class HistoryPoint(Schema):
    race: Named | None
    variant: Named
    period: str
    event_id: int | None
    event_name: str | None
    effective: dt.date
    rating_before: float | None
    rating: float
    mu: float | None
    phi: float | None
    sigma: float | None
    games_counted: int
    games_played: int


class History(Schema):
    system: str
    coach: CoachRef
    points: list[HistoryPoint]


class RatedIn(Schema):
    system: str
    run: int | None
    finished_at: dt.datetime | None


class Event(Schema):
    id: int
    name: str
    status: str
    start_date: dt.date
    end_date: dt.date
    country: str
    city: str
    is_major: bool
    variant: Named
    games: int


class EventPage(Page):
    items: list[Event]


class EventDetail(Event):
    rated_in: list[RatedIn]


class Standing(Schema):
    position: int
    coach: CoachRef
    race: str
    games: int
    wins: int
    draws: int
    losses: int
    points: float
    td_for: int
    td_against: int
    cas_for: int
    cas_against: int
    counted: int
    wt: float | None
    w_minus_we: float | None
    change: float | None
    rating_after: float | None


class Standings(Schema):
    system: str
    event: int
    standings: list[Standing]


class Game(Schema):
    id: int
    round: int
    played_at: dt.datetime
    kind: str
    home_coach: CoachRef
    home_race: str
    home_touchdowns: int
    home_casualties: int
    away_coach: CoachRef | None
    away_race: str | None
    away_touchdowns: int
    away_casualties: int
    conceded_by: str | None


class GamePage(Page):
    items: list[Game]


class Publication(Schema):
    system: str
    date: dt.date
    edition: int
    published_at: dt.datetime
    reason: str
    rated: int
    ranked: int
    starters: int
    complete: bool
    digest: str


class PublicationPage(Page):
    items: list[Publication]


class Revision(Schema):
    coach_number: int
    coach_name: str
    race: str
    variant: str
    published: float | None
    revised: float | None


class PublicationDetail(Publication):
    editions: list[int]
    revisions: list[Revision]
    revisions_total: int


class Entry(Schema):
    coach: CoachRef
    nationality: str | None
    race: Named | None
    variant: Named
    rating: float
    mu: float | None
    phi: float | None
    sigma: float | None
    nv: int | None
    rank: int | None
    overall_rank: int | None
    change: float | None
    games: int
    games_counted: int
    games_played: int


class EntryPage(Page):
    items: list[Entry]


class Run(Schema):
    id: int
    system: str
    trigger: str
    status: str
    from_date: dt.date | None
    recomputed_from: dt.date | None
    games_processed: int
    created_at: dt.datetime
    started_at: dt.datetime | None
    finished_at: dt.datetime | None
    duration: float | None


class RunPage(Page):
    items: list[Run]


class Problem(Schema):
    detail: str
