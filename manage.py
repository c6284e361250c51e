#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""
import os
import sys


def main():
    # The safe base (no debug pages, no known key); a developer's machine names ratingsite.settings.local,
    # a server ratingsite.settings.production.
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ratingsite.settings.base")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
