"""Claim codes: a code per coach, derived from the site's secret key and a random secret of the
coach's (members.models.ClaimSecret) by HMAC, so no code is stored anywhere; a new secret voids it."""
import base64
import hashlib
import hmac
import secrets

from django.conf import settings

CODE_LENGTH = 10  # base32 characters: 50 bits, against a handful of guesses an hour


def new_secret() -> str:
    return secrets.token_hex(32)


def claim_code(*, number: int, secret: str) -> str:
    """The code printed for the coach with this number, as XXXXX-XXXXX."""
    digest = hmac.new(settings.SECRET_KEY.encode(), f"members.claim:{number}:{secret}".encode(), hashlib.sha256).digest()
    code = base64.b32encode(digest).decode()[:CODE_LENGTH]
    return f"{code[:5]}-{code[5:]}"


def normalised(code: str) -> str:
    """What a member typed, as printed: case, spaces and dashes do not matter; 0/1/8 read as O/I/B."""
    kept = "".join(code.upper().split()).replace("-", "").translate(str.maketrans("018", "OIB"))
    return f"{kept[:5]}-{kept[5:]}"


def code_matches(*, number: int, secret: str, typed: str) -> bool:
    return hmac.compare_digest(claim_code(number=number, secret=secret), normalised(typed))
