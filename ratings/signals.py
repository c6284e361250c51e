"""What the ratings say to the apps downstream of them (the members' notices), which connect their
receivers when they start: the ratings import none of them."""
from django.dispatch import Signal

# A run's figures are committed. Sent once the run's transaction commits (transaction.on_commit),
# with run_id, system_id and published: the ids of the publications the run made (oldest first).
run_committed = Signal()
