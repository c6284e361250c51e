"""The fault suite's shared fixtures."""
from tests.reliability.test_broker_outage import broker  # noqa: F401  (a Redis of the test's own)
