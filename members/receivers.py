"""What the members' app does when the ratings say something (ratings.signals), connected in MembersConfig.ready."""
from members import services


def notices_after_run(sender, *, run_id: int, system_id: int, published: list[int], **kwargs) -> None:
    """A run committed: record (and mail) the notices of the ratings it changed and the list it published."""
    services.notices_record(run_id=run_id, system_id=system_id, published=published)
