"""Assurance: the checks of the ratings apart from their calculation. Verification (stored figures
against a replay and their formulas), the accuracy report and the parameter search. It reads and writes
the ratings' models (AccuracyReport, ParameterSearch, ...) through `ratings`; nothing of the
recalculation imports it: a run asks for an accuracy refresh by task name."""
