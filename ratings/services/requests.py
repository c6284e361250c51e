"""Asking for recalculations: queued runs (one per system), reruns, and rating-system changes."""
from __future__ import annotations

import datetime as dt
import logging
from functools import partial

from celery import group, signature
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from audit.models import Action
from audit.services import audit_record
from ratings.configuration import build_config
from ratings.models import (
    AccuracyRefreshRequest,
    RatingSystem,
    RecalculationRun,
    RunStatus,
    Trigger,
)
from ratings.services.leases import this_process
from ratingsite.broker import SETTLED, owed_again, sent, sent_later

logger = logging.getLogger(__name__)

RECALCULATE_TASK = "ratings.tasks.recalculate"
ACCURACY_TASK = "ratings.tasks.refresh_accuracy"


def recalculation_request(
    *, system: RatingSystem, trigger: str, since: dt.date | None = None, reason: str = "", requested_by=None,
    enqueue: bool = True,
) -> RecalculationRun:
    """Record a queued run and, with `enqueue`, hand it to the worker once the transaction commits
    (without, the caller carries it out)."""
    run = _queued_run(system=system, trigger=trigger, since=since, reason=reason, requested_by=requested_by, outbox=enqueue)
    if enqueue:
        transaction.on_commit(lambda: recalculation_enqueue(run_ids=[run.pk]))
    return run


def _queued_run(
    *, system: RatingSystem, trigger: str, since, reason: str, requested_by, outbox: bool, retry_of: RecalculationRun | None = None,
) -> RecalculationRun:
    return RecalculationRun.objects.create(
        system=system, trigger=trigger, from_date=since, reason=reason[:300], retry_of=retry_of,
        requested_by=requested_by if requested_by is not None and requested_by.is_authenticated else None,
        enqueued_at=None if outbox else timezone.now(),  # in the outbox until its message goes out
        worker="" if outbox else this_process(),  # its caller holds it: the sweep fails it if the caller dies first
    )


def recalculation_enqueue(*, run_ids: list[int]) -> list[int]:
    """Hand queued runs to the workers, with every queued run whose message did not go out before:
    one task per run, several as one Celery group, so that they spread over every worker on every
    machine (in process, one after the other, without a broker: in a web request, after its response,
    see broker.sent_later). Returns the runs sent.

    Queued runs are the outbox: a run records when its message went out, and one that could not
    go (the broker down or hung) stays queued for the dispatcher, with nothing lost and no error
    for the person who asked. By the task's name: the tasks module calls these services."""
    unsent = RecalculationRun.objects.filter(status=RunStatus.QUEUED, enqueued_at=None).exclude(pk__in=run_ids)
    ids = [*run_ids, *unsent.order_by("pk").values_list("pk", flat=True)]
    if not ids:
        return []
    tasks = [signature(RECALCULATE_TASK, args=(run_id,)) for run_id in ids]
    # No broker, in a web request: this process carries them out one by one (a failed one stops no
    # other) once the response has gone, and holds them until then (the sweep fails them should it die first).
    if all(sent_later(task, owed=f"run {run_id}") for run_id, task in zip(ids, tasks, strict=True)):
        RecalculationRun.objects.filter(pk__in=ids, enqueued_at=None).update(enqueued_at=timezone.now(), worker=this_process())
        return ids
    if not sent(tasks[0] if len(tasks) == 1 else group(tasks), owed=f"runs {ids}"):
        return []
    RecalculationRun.objects.filter(pk__in=ids, enqueued_at=None).update(enqueued_at=timezone.now())
    return ids


def recalculation_dispatch(*, settled: dt.timedelta = SETTLED) -> list[int]:
    """Send every queued run whose message did not go out (a broker outage), once it has been queued
    for `settled` (a younger one may still be waiting for its transaction to commit), and every run
    whose message the broker lost (recalculation_resend)."""
    recalculation_resend()
    owed = RecalculationRun.objects.filter(status=RunStatus.QUEUED, enqueued_at=None, created_at__lt=timezone.now() - settled)
    run_ids = list(owed.order_by("pk").values_list("pk", flat=True))
    return recalculation_enqueue(run_ids=run_ids) if run_ids else []


def recalculation_resend(*, after: dt.timedelta | None = None) -> list[int]:
    """Put back in the outbox every queued run whose message went out longer than `after` ago
    (settings.RECALCULATION_RESEND_AFTER) and that no worker has taken: the broker lost it (Redis
    restarted without persistence, failed over, evicted the key), and the run would stay queued for
    ever, holding up every edit from its date. Returns them; the dispatcher sends them.

    Idempotent: a worker names itself on the run before anything else (its lease), and a run that
    names one is never sent again; a message that was only slow finds its run done, as any second
    delivery does. Each run goes again at most once every `after`."""
    after = after if after is not None else settings.RECALCULATION_RESEND_AFTER
    stale = RecalculationRun.objects.filter(status=RunStatus.QUEUED, worker="", enqueued_at__lt=timezone.now() - after)
    resent = []
    for run_id, enqueued_at in stale.order_by("pk").values_list("pk", "enqueued_at"):
        if RecalculationRun.objects.filter(pk=run_id, status=RunStatus.QUEUED, worker="", enqueued_at=enqueued_at).update(enqueued_at=None):
            resent.append(run_id)
            logger.warning("run %s: sent at %s and taken by no worker since (the broker lost it?): sent again", run_id, enqueued_at)
    return resent


def accuracy_refresh_request(*, system_ids: list[int]) -> bool:
    """Runs of these systems committed (none: a run ended without committing): record that their
    accuracy reports are owed a refresh, and send it once no run is queued or running (without a
    broker it runs here and now); whether its message went out.

    Rankings first: the refresh of a batch's systems (a sanction's runs) goes once, after the batch's
    last run, instead of after each, which made every later run of the batch wait for it without a
    broker. The last run to end sees every other ended, and sends it."""
    AccuracyRefreshRequest.objects.bulk_create([AccuracyRefreshRequest(system_id=pk) for pk in sorted(set(system_ids))])
    if _runs_pending():
        return False
    return accuracy_refresh_enqueue()


def _runs_pending() -> bool:
    return RecalculationRun.objects.filter(status__in=[RunStatus.QUEUED, RunStatus.RUNNING]).exists()


def accuracy_refresh_enqueue() -> bool:
    """Send one refresh of every system whose accuracy report is still owed its message; whether it
    went out. A broker that does not take it leaves the requests owed, for the dispatcher."""
    owed = list(AccuracyRefreshRequest.objects.filter(enqueued_at=None).values_list("pk", "system_id"))
    if not owed:
        return False
    system_ids = sorted({system_id for _, system_id in owed})
    went = AccuracyRefreshRequest.objects.filter(pk__in=[pk for pk, _ in owed], enqueued_at=None)
    try:
        if not sent(signature(ACCURACY_TASK, args=(system_ids,)), owed=f"the accuracy reports of systems {system_ids}"):
            return False
    except Exception:
        # without a broker the refresh ran here and failed: like a worker's failed task it is not
        # owed again (else it would hold up every later refresh, of every system, with it)
        went.update(enqueued_at=timezone.now())
        raise
    went.update(enqueued_at=timezone.now())
    return True


def accuracy_refresh_dispatch(*, settled: dt.timedelta = SETTLED) -> bool:
    """Send the accuracy refresh a broker outage kept back, once owed for `settled` (a younger request's
    sender may still be sending it) and no run is queued or running (the last sends it when it ends);
    while runs follow one another without pause, once owed for longer than a run may take. A refresh
    the broker lost is owed again (broker.owed_again)."""
    owed_again(AccuracyRefreshRequest.objects.all(), what="accuracy refresh requests")
    owed = AccuracyRefreshRequest.objects.filter(enqueued_at=None)
    now = timezone.now()
    if not owed.filter(created_at__lt=now - settled).exists():
        return False
    if _runs_pending() and not owed.filter(created_at__lt=now - dt.timedelta(seconds=settings.RECALCULATION_TIME_LIMIT)).exists():
        return False
    return accuracy_refresh_enqueue()


def recalculation_request_all(
    *, trigger: str, since: dt.date | None = None, reason: str = "", requested_by=None
) -> list[RecalculationRun]:
    """One queued run for every active system, as one group of tasks: a change to the record affects them all."""
    runs = [
        _queued_run(system=system, trigger=trigger, since=since, reason=reason, requested_by=requested_by, outbox=True)
        for system in RatingSystem.objects.filter(active=True)
    ]
    transaction.on_commit(lambda: recalculation_enqueue(run_ids=[run.pk for run in runs]))
    return runs


def recalculation_retry(*, run_ids: list[int]) -> list[RecalculationRun]:
    """Queue once more, as a run of its own linked to it (trigger "retry"), each of these runs that
    the sweep failed because its process was lost (a worker's main process killed: its message
    then waits unacknowledged for the broker's visibility timeout, an hour). A run that is itself a
    retry, or has one, is not retried again: no loop. Nor is one whose dates a queued or running run
    of its system covers: that run recomputes them. Returns the retries queued."""
    retries = []
    for lost in RecalculationRun.objects.filter(pk__in=run_ids, status=RunStatus.FAILED, retry_of=None).select_related("system"):
        with transaction.atomic():
            RecalculationRun.objects.select_for_update().get(pk=lost.pk)  # one retry, whoever else sweeps
            pending = RecalculationRun.objects.filter(system=lost.system_id, status__in=[RunStatus.QUEUED, RunStatus.RUNNING])
            covers = Q(from_date=None) | Q(from_date__lte=lost.from_date) if lost.from_date else Q(from_date=None)
            covering = pending.filter(covers)
            if lost.retries.exists() or covering.exists():
                continue
            retry = _queued_run(
                system=lost.system, trigger=Trigger.RETRY, since=lost.from_date, reason=f"retry of run {lost.pk}, whose process was lost",
                requested_by=lost.requested_by, outbox=True, retry_of=lost,
            )
            transaction.on_commit(partial(recalculation_enqueue, run_ids=[retry.pk]))
        logger.warning("run %s of %s: its process was lost, retried as run %s", lost.pk, lost.system.slug, retry.pk)
        retries.append(retry)
    return retries


@transaction.atomic(durable=True)
def recalculation_rerun(*, run: RecalculationRun, actor) -> RecalculationRun:
    """Queue a new run of a recorded run's system from the same date (trigger "rerun")."""
    rerun = recalculation_request(
        system=run.system, trigger=Trigger.RERUN, since=run.from_date, reason=f"rerun of run {run.pk}", requested_by=actor
    )
    audit_record(
        actor=actor, action=Action.RUN_RERUN, obj=run, after={"run": rerun.pk, "system": run.system.slug,
                                                         "from_date": run.from_date.isoformat() if run.from_date else None},
    )
    return rerun


def rating_system_update(*, system: RatingSystem, actor, **changes) -> RatingSystem:
    """Change a system's settings after validating them against its engine; recompute it from scratch."""
    before = {"parameters": system.parameters, "per_race": system.per_race, "inactive_after_months": system.inactive_after_months}
    variants = changes.pop("variants", None)
    excluded = changes.pop("excluded_races", None)
    for name, value in changes.items():
        setattr(system, name, value)
    build_config(
        method=system.method, per_race=system.per_race, parameters=system.parameters,
        variants=[v.slug for v in variants] if variants is not None else list(system.variants.values_list("slug", flat=True)),
        excluded_races=[r.slug for r in excluded] if excluded is not None else list(system.excluded_races.values_list("slug", flat=True)),
    )
    with transaction.atomic(durable=True):
        system.full_clean()
        system.save()
        if variants is not None:
            system.variants.set(variants)
        if excluded is not None:
            system.excluded_races.set(excluded)
        after = {"parameters": system.parameters, "per_race": system.per_race, "inactive_after_months": system.inactive_after_months}
        audit_record(actor=actor, action=Action.RATING_SYSTEM_UPDATE, obj=system, before=before, after=after)
        recalculation_request(system=system, trigger=Trigger.PARAMETERS, reason="parameters changed", requested_by=actor)
    return system
