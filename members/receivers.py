"""What the members' app does when the ratings or the record say something (ratings.signals,
tournaments.signals), connected in MembersConfig.ready."""
from members import services


def notices_after_run(sender, *, run_id: int, system_id: int, published: list[int], **kwargs) -> None:
    """A run committed: its notices are owed, and members.tasks.notices_for_run records and mails
    them (in a worker with a broker): the run's process only records that they are owed."""
    services.notices_request(run_id=run_id, system_id=system_id, published=published)


def notices_rename(sender, *, coach, before: str, after: str, **kwargs) -> None:
    """A coach is shown under another name (a pseudonym, hidden, erased): his followers' notices, and
    so their feeds, name him as the public sees him now."""
    services.notices_rename(coach=coach, before=before, after=after)
