from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from api.keys import api_key_issue, api_key_revoke


class Command(BaseCommand):
    help = (
        "Issue an API key (--issue NAME: the key is printed once, only its hash is kept) or revoke the "
        "keys starting with a prefix (--revoke PREFIX). A key is sent in the X-API-Key header."
    )

    def add_arguments(self, parser):
        action = parser.add_mutually_exclusive_group(required=True)
        action.add_argument("--issue", metavar="NAME", help="whom the key is for")
        action.add_argument("--revoke", metavar="PREFIX", help="the first 8 characters of the key")
        parser.add_argument("--per-minute", type=int, default=None,
                            help="requests a minute the key allows (default: API_RATE_KEYED)")

    def handle(self, *args, issue=None, revoke=None, per_minute=None, **options):
        if revoke is not None:
            revoked = api_key_revoke(prefix=revoke)
            if not revoked:
                raise CommandError(f"No key in force starts with '{revoke}'.")
            for key in revoked:
                self.stdout.write(f"Revoked: {key}")
            return
        try:
            record, key = api_key_issue(name=issue, per_minute=per_minute or settings.API_RATE_KEYED)
        except ValueError as error:
            raise CommandError(str(error)) from None
        self.stderr.write(f"Issued to {record.name}, {record.per_minute} requests a minute. Shown once: keep it now.")
        self.stdout.write(key)
