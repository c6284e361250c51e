"""Without a broker, work a web request hands out (recalculation runs, the statistics refresh) goes on
in one thread of the server once the response has gone, instead of holding the answer: after_response.
Outside a request (a command, a shell, a worker) the caller carries the work out itself."""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import wait as futures_wait

from django.core.signals import request_finished, request_started
from django.db import connections

logger = logging.getLogger(__name__)

# One thread: SQLite has a single writer, and a system runs one run at a time anyway.
_AFTER_RESPONSE = ThreadPoolExecutor(max_workers=1, thread_name_prefix="after-response")
_request = threading.local()  # the jobs of the request this thread is serving; None outside one
_handed: list[Future] = []


def after_response(job: Callable[[], object]) -> bool:
    """Inside a web request: keep `job` for a thread of this process to carry out once the response
    has gone, and return True. Outside one (a command, a shell, a worker): False, the caller does it."""
    jobs = getattr(_request, "jobs", None)
    if jobs is None:
        return False
    jobs.append(job)
    return True


def after_response_wait(timeout: float | None = None) -> bool:
    """Wait until the thread has carried out every job handed to it so far; False if `timeout` ran out."""
    handed = list(_handed)
    _, pending = futures_wait(handed, timeout=timeout)
    for future in handed:
        if future.done():
            _handed.remove(future)
    return not pending


def _request_began(**kwargs) -> None:
    _request.jobs = []


def _response_gone(**kwargs) -> None:
    jobs, _request.jobs = getattr(_request, "jobs", None) or [], None
    _handed.extend(_AFTER_RESPONSE.submit(_in_thread, job) for job in jobs)


def _in_thread(job: Callable[[], object]) -> None:
    try:
        job()
    except Exception:  # a failed run records its error on the run; the thread goes on with the next job
        logger.exception("work carried out after its request failed")
    finally:
        connections.close_all()  # this thread's own connections


request_started.connect(_request_began, dispatch_uid="ratingsite.after_response.request_began")
request_finished.connect(_response_gone, dispatch_uid="ratingsite.after_response.response_gone")
