"""Writes for the ratings, by role: asking for runs (requests), carrying them out (execution),
writing what a replay yields (storage), and running several at once (workers).

The public services are named here; callers use `from ratings import services`.
"""
from ratings.services.execution import (
    RecalculationFailed,
    checkpoint_dates,
    complete_list,
    recalculation_execute,
    recalculation_execute_many,
)
from ratings.services.leases import recalculation_cancel, recalculation_sweep
from ratings.services.publication import list_republish, lists_publish_due, publication_digest, published_names_replace
from ratings.services.requests import (
    ACCURACY_TASK,
    RECALCULATE_TASK,
    accuracy_refresh_dispatch,
    accuracy_refresh_request,
    rating_system_update,
    recalculation_dispatch,
    recalculation_enqueue,
    recalculation_request,
    recalculation_request_all,
    recalculation_rerun,
    recalculation_resend,
    recalculation_retry,
)

__all__ = [
    "ACCURACY_TASK",
    "RECALCULATE_TASK",
    "RecalculationFailed",
    "accuracy_refresh_dispatch",
    "accuracy_refresh_request",
    "checkpoint_dates",
    "complete_list",
    "list_republish",
    "lists_publish_due",
    "publication_digest",
    "published_names_replace",
    "rating_system_update",
    "recalculation_cancel",
    "recalculation_dispatch",
    "recalculation_enqueue",
    "recalculation_execute",
    "recalculation_execute_many",
    "recalculation_request",
    "recalculation_request_all",
    "recalculation_rerun",
    "recalculation_resend",
    "recalculation_retry",
    "recalculation_sweep",
]
