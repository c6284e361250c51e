"""What the members' app does when the ratings say something (ratings.signals), connected in MembersConfig.ready."""
from members import services


def notices_after_run(sender, *, run_id: int, system_id: int, published: list[int], **kwargs) -> None:
    """A run committed: its notices are owed, and members.tasks.notices_for_run records and mails
    them (in a worker with a broker): the run's process only records that they are owed."""
    services.notices_request(run_id=run_id, system_id=system_id, published=published)
