"""The Celery tasks' own settings (the worker tests run them on the real broker)."""
from ratings.tasks import recalculate


def test_a_recalculation_task_has_a_time_limit(settings):
    # soft: the run fails and rolls back, releasing its system's lock; hard, a minute later: the
    # worker's pool process is replaced
    assert recalculate.soft_time_limit == settings.RECALCULATION_TIME_LIMIT == 3600
    assert recalculate.time_limit == settings.RECALCULATION_TIME_LIMIT + 60
