"""What the ratings do when the record changes (tournaments.signals), connected in RatingsConfig.ready."""
from django.template.loader import render_to_string
from django.utils.translation import gettext

from ratings import selectors, services
from ratings.models import CalculationRow, CurrentRating, PeriodSummary, RatingListEntry, Trigger
from ratingsite import page_cache


def recalculate_from(sender, *, trigger: str, since, reason: str, actor, **kwargs) -> None:
    """Rated results changed: every active system recomputes forward from `since`, and the public
    pages show the change (an event's status, say) once it commits. The record's trigger (a
    tournaments.signals.ResultsTrigger) is the run trigger of the same value."""
    page_cache.bump_on_commit()
    services.recalculation_request_all(trigger=Trigger(trigger), since=since, reason=reason, requested_by=actor)


def forget_merged_coach(sender, *, keep, duplicate, **kwargs) -> None:
    """The duplicate's derived rows go; the recalculation the merge asks for rebuilds them under `keep`."""
    page_cache.bump_on_commit()
    for model in (CalculationRow, PeriodSummary, CurrentRating, RatingListEntry):
        model.objects.filter(coach=duplicate).delete()
    CalculationRow.objects.filter(opponent=duplicate).delete()


def running_recalculation(sender, *, event, **kwargs) -> str | None:
    """Why the event's games may not change now: a queued or running run covers its dates
    (a run whose process is gone is failed first, and holds nothing up)."""
    services.recalculation_sweep(drop_tables=False)  # inside the edit's transaction: no DROP TABLE here
    run = selectors.run_covering(event.end_date)
    if run is None:
        return None
    values = {"system": run.system.name, "run": run.pk, "status": run.get_status_display().lower()}
    if run.from_date:
        return gettext(
            "The %(system)s ratings are being recalculated from %(day)s (run %(run)s, %(status)s): this event cannot change "
            "until that run finishes. Try again in a few minutes."
        ) % {**values, "day": f"{run.from_date:%Y-%m-%d}"}
    return gettext(
        "The %(system)s ratings are being recalculated from the first game (run %(run)s, %(status)s): this event cannot "
        "change until that run finishes. Try again in a few minutes."
    ) % values


def sanction_preview(sender, *, event, **kwargs) -> str:
    """What sanctioning the event would change in each active system, for its staff review page."""
    return render_to_string("ratings/staff/_sanction_impact.html", {"event": event, "impacts": selectors.sanction_impact(event=event)})


def rename_published(sender, *, coach, after: str, **kwargs) -> None:
    """What the public sees of a coach changed: the published lists show him so too."""
    page_cache.bump_on_commit()
    nationality = str(coach.nationality or "") if coach.public_details_shown else ""  # a hidden coach: his label alone
    services.published_names_replace(coach_number=coach.number, name=after, nationality=nationality)


def coach_ratings_data(sender, *, coach, **kwargs) -> dict:
    """The coach's part of a copy of what is held about him: his current rating in each system."""
    rows = (CurrentRating.objects.filter(coach=coach).select_related("system", "race", "variant")
            .order_by("system__display_order", "variant__name", "race__name"))
    return {"ratings": [
        {"system": r.system.slug, "race": r.race.name if r.race_id else None, "variant": r.variant.name, "rating": r.value,
         "rank": r.rank, "games": r.games, "last_played": r.last_played.isoformat() if r.last_played else None}
        for r in rows
    ]}
