"""The nightly open-data dump (beat: downloads/migrations/0001_nightly_dump.py). Safe to run twice:
a second run the same day writes nothing, and one finding another under way returns at once."""
from celery import shared_task

from downloads.services import open_data_dump


@shared_task
def dump_open_data() -> dict:
    """Every night: the files of new publications, today's dump of the game record and the current
    ratings, and the manifest; what it wrote."""
    result = open_data_dump()
    return {"busy": result.busy, "written": len(result.written), "withdrawn": len(result.withdrawn),
            "errata": len(result.errata), "seconds": round(result.seconds, 3)}
