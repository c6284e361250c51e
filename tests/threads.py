"""Work started at the same moment in several threads, each with its own database connection."""
import threading
from collections.abc import Callable

from django.db import connections


def at_once(work: Callable[[], object], times: int = 2) -> tuple[list, list[Exception]]:
    """Runs `work` in `times` threads released together: what each returned and what each raised."""
    start, results, errors = threading.Barrier(times), [], []

    def run():
        try:
            start.wait(10)
            results.append(work())
        except Exception as error:  # the test reports it
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(times)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results, errors
