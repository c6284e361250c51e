"""What a message to a broker that is out raises: the outboxes (queued runs, owed statistics
refreshes) catch these, keep the message owed, and let their dispatcher send it later."""
from kombu.exceptions import OperationalError as BrokerUnavailable

# a broker that is down, refuses or hangs (its calls time out: settings' broker options)
BROKER_ERRORS = (BrokerUnavailable, ConnectionError, TimeoutError)
