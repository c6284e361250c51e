"""Rating engines: pure functions over plain data (see common.py for the shared contract)."""
