"""The parameter search (issue 19, item 3): each method's parameter tuned on one window of the
record and reported on a later one, without changing the configured systems.

search: the pure part (the in-memory replay per grid value, the windows, the choice);
services: running it over the record and storing a ParameterSearch per system;
selectors: the latest stored search of each system, for the accuracy page.
"""
