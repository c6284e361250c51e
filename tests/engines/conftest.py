"""The engines' tests, which also run alone as plain Python (`make test-engines`: no Django, no
conftest above this one)."""
from hypothesis import settings

# No test asserts a time (hypothesis's default deadline fails an example slower than 200 ms): on a
# loaded machine, or beside another pytest-xdist worker, a slow example is no failure.
settings.register_profile("untimed", deadline=None)
settings.load_profile("untimed")
