"""python manage.py demo_logins: a staff and an organiser login for the demo (a developer's site only)."""
from django.core.management.base import BaseCommand, CommandError

from tournaments.demo import demo_logins_create


class Command(BaseCommand):
    help = "Create (or reset) the demo's staff and organiser logins and print them; refused unless DEBUG is on."

    def handle(self, *args, **options):
        try:
            made = demo_logins_create()
        except ValueError as error:
            raise CommandError(str(error)) from error
        for username, password, role in made:
            self.stdout.write(f"{role:<11} log in at /accounts/login/ as {username} with the password {password}")
