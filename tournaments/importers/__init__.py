"""Importers that bring games recorded elsewhere into the federation's record."""
