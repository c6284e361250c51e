"""Forms of the organiser, staff and account pages: they parse input; the services decide and write."""
import hashlib
import re
from dataclasses import dataclass
from pathlib import PurePath

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.forms import AuthenticationForm
from django.core.cache import caches
from django.core.exceptions import ValidationError
from django.forms import formset_factory
from django.forms.models import ModelChoiceIterator
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from ratingsite.login_limits import AccountFailures

from . import selectors
from .models import Coach, Event, GameKind, PlayDateValidator, Race, Side, Visibility, search_key
from .rules import FIRST_PLAY_DATE, MAX_CASUALTIES, MAX_TOUCHDOWNS, last_play_date
from .uploads import (
    MAX_UPLOAD_BYTES,
    MAX_UPLOAD_GAMES,
    AwardEntry,
    GameEntry,
    ParticipantEntry,
    RaceLookup,
    RoundEntry,
    check_awards,
    check_participants,
    check_results,
    check_rounds,
)

DATE = forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d")
TIME = forms.TimeInput(attrs={"type": "time"}, format="%H:%M")
NUMBER = forms.NumberInput(attrs={"inputmode": "numeric", "class": "narrow"})


class LoginAttempts:
    """Failed logins per username and address, counted in the limits' cache; too many locks that pair out for a while."""

    def __init__(self, username: str, address: str):
        digest = hashlib.sha256(f"{username.casefold()}|{address}".encode()).hexdigest()
        self.key = f"login-attempts:{digest}"
        self.limit = getattr(settings, "LOGIN_ATTEMPTS_LIMIT", 5)
        self.window = getattr(settings, "LOGIN_ATTEMPTS_WINDOW", 15 * 60)

    @property
    def blocked(self) -> bool:
        return caches["limits"].get(self.key, 0) >= self.limit

    def failed(self) -> None:
        cache = caches["limits"]
        if cache.add(self.key, 1, self.window):
            return
        try:
            cache.incr(self.key)
        except ValueError:
            cache.set(self.key, 1, self.window)

    def succeeded(self) -> None:
        caches["limits"].delete(self.key)


class LimitedLogin:
    """Django's login check, refusing an account from one address after repeated failures there, and
    an account locked from every address (ratingsite.login_limits), each with its own message."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "rate_limited": gettext_lazy("Too many failed attempts to log in as %(username)s from your address. "
                                     "Wait %(minutes)d minutes and try again, or reset your password."),
        "account_locked": gettext_lazy("The account %(username)s is locked after too many failed logins from many "
                                       "addresses. Reset your password, or ask the federation's staff to unlock it."),
    }

    def clean(self):
        username = self.cleaned_data.get("username") or ""
        address = self.request.META.get("REMOTE_ADDR", "") if self.request else ""
        attempts = LoginAttempts(username, address)
        if attempts.blocked:
            raise ValidationError(
                self.error_messages["rate_limited"], code="rate_limited",
                params={"username": username, "minutes": attempts.window // 60},
            )
        if username and AccountFailures(username).locked:
            raise ValidationError(self.error_messages["account_locked"], code="account_locked",
                                  params={"username": username})
        try:
            cleaned = super().clean()
        except ValidationError:
            attempts.failed()
            raise
        attempts.succeeded()
        return cleaned


class LoginForm(LimitedLogin, AuthenticationForm):
    """Django's login form with the site's limits."""


class AdminLoginForm(LimitedLogin, AdminAuthenticationForm):
    """The admin's login form with the same limits as the site's (/admin/login/)."""

    error_messages = {**AdminAuthenticationForm.error_messages, **{
        code: message for code, message in LimitedLogin.error_messages.items() if code in {"rate_limited", "account_locked"}
    }}


def _date_window(*fields) -> None:
    """Check the dates of play first (before comparing them), and let the browser's date picker offer only those."""
    attrs = {"min": FIRST_PLAY_DATE.isoformat(), "max": last_play_date(timezone.localdate()).isoformat()}
    for field in fields:
        if not any(isinstance(validator, PlayDateValidator) for validator in field.validators):
            field.validators.append(PlayDateValidator())
        field.widget.attrs.update(attrs)


class EventForm(forms.ModelForm):
    class Meta:
        model = Event
        fields = ["name", "variant", "start_date", "end_date", "country", "city", "latitude", "longitude", "is_major"]
        widgets = {"start_date": DATE, "end_date": DATE}
        help_texts = {
            "latitude": gettext_lazy("Decimal degrees, −90 to 90 (for the map)."),
            "longitude": gettext_lazy("Decimal degrees, −180 to 180."),
        }
        labels = {
            "name": gettext_lazy("Name"), "variant": gettext_lazy("Variant"), "start_date": gettext_lazy("Start date"),
            "end_date": gettext_lazy("End date"), "country": gettext_lazy("Country"), "city": gettext_lazy("City"),
            "latitude": gettext_lazy("Latitude"), "longitude": gettext_lazy("Longitude"), "is_major": gettext_lazy("Major"),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _date_window(self.fields["start_date"], self.fields["end_date"])

    def clean(self):
        cleaned = super().clean()
        start, end = cleaned.get("start_date"), cleaned.get("end_date")
        if start and end and end < start:
            self.add_error("end_date", _("The event cannot end before it starts."))
        for name, limit, message in (
            ("latitude", 90, _("A latitude lies between −90 and 90.")), ("longitude", 180, _("A longitude lies between −180 and 180.")),
        ):
            value = cleaned.get(name)
            if value is not None and not -limit <= value <= limit:
                self.add_error(name, message)
        return cleaned


def _ranked_races():
    return Race.objects.filter(ranked=True).order_by("name")


def _page_races() -> RaceLookup:
    """Every race, found by slug or name, the ranked ones offered: one query for a whole page."""
    return RaceLookup(Race.objects.order_by("name"))


class RaceChoiceIterator(ModelChoiceIterator):
    """A RaceField's options from the races it was handed, if any, instead of a query per dropdown."""

    def __iter__(self):
        if self.field.races is None:
            yield from super().__iter__()
            return
        if self.field.empty_label is not None:
            yield ("", self.field.empty_label)
        for race in self.field.races.ranked():
            yield self.choice(race)

    def __len__(self):
        if self.field.races is None:
            return super().__len__()
        return len(self.field.races.ranked()) + (1 if self.field.empty_label is not None else 0)

    def __bool__(self):
        if self.field.races is None:
            return super().__bool__()
        return self.field.empty_label is not None or bool(self.field.races.ranked())


# The page's one <datalist> of the ranked races, suggested on every race input.
RACE_LIST = "event-races"


class RaceInput(forms.TextInput):
    """A race typed by name, the page's ranked races suggested (RACE_LIST): a dropdown of thirty
    races on every row made the entry page of a 160-game event 1.15 MB."""

    def __init__(self, attrs=None):
        super().__init__({"list": RACE_LIST, "autocomplete": "off", "class": "race", "maxlength": "100", **(attrs or {})})


class RaceField(forms.ModelChoiceField):
    """A ranked race, typed by its name or slug (RaceLookup.find), shown by its name.

    A form may hand it `races` (_page_races(), shared by every row of a formset); it then offers
    and finds those without a query. Not handed any, it queries as a ModelChoiceField does.
    """

    iterator = RaceChoiceIterator
    widget = RaceInput

    def prepare_value(self, value):
        return value.name if isinstance(value, Race) else super().prepare_value(value)

    def __init__(self, **kwargs):
        kwargs.setdefault("error_messages", {"invalid_choice": gettext_lazy("Choose one of the federation's ranked races.")})
        self.races: RaceLookup | None = None
        super().__init__(queryset=_ranked_races(), to_field_name="slug", **kwargs)

    def to_python(self, value):
        if self.races is None:
            return super().to_python(value)
        if value in self.empty_values:
            return None
        self.validate_no_null_characters(value)
        race, problem = self.races.find(value.slug if isinstance(value, Race) else str(value))
        if race is None and problem.startswith("'"):
            problem = self.error_messages["invalid_choice"]
        if race is None:
            raise ValidationError(problem, code="invalid_choice", params={"value": value})
        if not race.ranked:
            raise ValidationError(self.error_messages["invalid_choice"], code="invalid_choice", params={"value": value})
        return race


class _RaceRowForm(forms.Form):
    """A row with RaceFields, taking the page's races once through the formset's form_kwargs."""

    def __init__(self, *args, races: RaceLookup | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            if isinstance(field, RaceField):
                field.races = races


# The page's one <datalist> of its participants, suggested on every coach input.
COACH_LIST = "event-coaches"
NAME_AND_NUMBER = re.compile(r"^(?P<name>.*?)\s*\((?P<number>\d{1,10})\)$")


@dataclass(frozen=True)
class CoachText:
    """A coach typed as a name ("Anna Smit"), or a name with a number ("Anna Smit (101)") to check."""

    name: str
    number: int | None = None


class CoachField(forms.CharField):
    """A coach by federation number ("101"), as the suggestions give him ("Anna Smit (101)"), or by
    name ("Anna Smit"): digits give the number; the rest a CoachText that EventEntry looks up."""

    widget = forms.TextInput(attrs={"list": COACH_LIST, "autocomplete": "off", "class": "coach", "maxlength": "200"})

    def to_python(self, value):
        text = super().to_python(value)
        if text in self.empty_values:
            return None
        if len(text) > 200:
            raise ValidationError(_("A coach's name has at most 200 characters."), code="max_length")
        if text.isascii() and text.isdigit():
            number = int(text)
            if not 1 <= number <= 2**31 - 1:
                raise ValidationError(_("No coach has the number %(number)s.") % {"number": text}, code="invalid")
            return number
        if match := NAME_AND_NUMBER.match(text):
            return CoachText(match["name"], int(match["number"]))
        return CoachText(text)


def _number(label: str = gettext_lazy("Coach"), required: bool = True) -> CoachField:
    return CoachField(label=label, required=required, help_text=gettext_lazy("Federation number, or name (suggestions as you type)."))


SCORE_ERRORS = {
    "touchdowns": {
        "min_value": gettext_lazy("The number of touchdowns cannot be negative."),
        "max_value": gettext_lazy("That is not a believable number of touchdowns: at most %(limit_value)s."),
    },
    "casualties": {
        "min_value": gettext_lazy("The number of casualties cannot be negative."),
        "max_value": gettext_lazy("That is not a believable number of casualties: at most %(limit_value)s."),
    },
}


def _score(label: str, limit: int, what: str, *, required: bool = True) -> forms.IntegerField:
    return forms.IntegerField(
        label=label, required=required, min_value=0, max_value=limit, initial=0, widget=NUMBER, error_messages=SCORE_ERRORS[what],
    )


class ParticipantForm(_RaceRowForm):
    coach = _number()
    race = RaceField(label=gettext_lazy("Race"))


class RoundForm(forms.Form):
    number = forms.IntegerField(min_value=1, max_value=99, widget=NUMBER, label=gettext_lazy("Number"))
    date = forms.DateField(widget=DATE, label=gettext_lazy("Date"))
    time = forms.TimeField(
        required=False, widget=TIME, label=gettext_lazy("Time"), help_text=gettext_lazy("Start (orders the rounds of a day)."),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _date_window(self.fields["date"])


class GameForm(_RaceRowForm):
    round = forms.IntegerField(min_value=1, max_value=99, widget=NUMBER, label=gettext_lazy("Round"))
    home_coach = _number(gettext_lazy("Home coach"))
    home_race = RaceField(
        required=False, label=gettext_lazy("Home race"), help_text=gettext_lazy("Empty: the race the coach is registered with."),
    )
    home_td = _score(gettext_lazy("Home TD"), MAX_TOUCHDOWNS, "touchdowns")
    away_td = _score(gettext_lazy("Away TD"), MAX_TOUCHDOWNS, "touchdowns")
    away_coach = _number(gettext_lazy("Away coach"), required=False)
    away_race = RaceField(required=False, label=gettext_lazy("Away race"))
    home_cas = _score(gettext_lazy("Home CAS"), MAX_CASUALTIES, "casualties", required=False)
    away_cas = _score(gettext_lazy("Away CAS"), MAX_CASUALTIES, "casualties", required=False)
    conceded = forms.ChoiceField(choices=[("", "—"), *Side.choices], required=False, label=gettext_lazy("Conceded"))
    kind = forms.ChoiceField(choices=GameKind.choices, initial=GameKind.PLAYED, label=gettext_lazy("Kind"))

    def __init__(self, *args, round_number: int | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        if round_number is not None:  # a new row on a round's page is of that round
            self.fields["round"].initial = round_number

    def clean(self):
        cleaned = super().clean()
        bye = cleaned.get("kind") == GameKind.BYE
        if bye and (cleaned.get("away_coach") or cleaned.get("away_race")):
            self.add_error("away_coach", _("A bye has no opponent: leave the away coach empty."))
        if not bye and "away_coach" in cleaned and cleaned.get("away_coach") is None:
            self.add_error("away_coach", _("Give the away coach's federation number (or make the game a bye)."))
        if bye and cleaned.get("conceded"):
            self.add_error("conceded", _("Nobody concedes a bye."))
        return cleaned


class AwardForm(_RaceRowForm):
    category = forms.CharField(max_length=100, label=gettext_lazy("Category"))
    coach = _number()
    race = RaceField(required=False, label=gettext_lazy("Race"))


ParticipantFormSet = formset_factory(ParticipantForm, extra=4, can_delete=True)
MORE_GAME_ROWS = 8
RoundFormSet = formset_factory(RoundForm, extra=2, can_delete=True)
GameFormSet = formset_factory(GameForm, extra=4, can_delete=True)
AwardFormSet = formset_factory(AwardForm, extra=2, can_delete=True)


def _kept(formset):
    """(row number, form) of every existing or filled-in row not marked for deletion."""
    initial = formset.initial_form_count()
    for index, form in enumerate(formset.forms):
        if (index >= initial and not form.has_changed()) or form.cleaned_data.get("DELETE"):
            continue
        yield index + 1, form


def with_more_game_rows(data, count: int = MORE_GAME_ROWS, *, round_number: int | None = None):
    """The posted entry page with `count` more empty game rows, each as a page's empty row is posted
    (so an untouched one stays unchanged and is skipped); on a round's page, rows of that round."""
    data = data.copy()
    try:
        total = int(data.get("games-TOTAL_FORMS", ""))
    except ValueError:
        return data
    total = max(0, min(total, GameFormSet.max_num - count))
    for index in range(total, total + count):
        for name, field in GameForm.base_fields.items():
            initial = round_number if name == "round" and round_number is not None else field.initial
            data.setdefault(f"games-{index}-{name}", "" if initial is None else str(initial))
    data["games-TOTAL_FORMS"] = str(total + count)
    return data


# Lines of the saved rows a page does not show (other rounds' games; the participants, rounds and
# awards on a round's page): after any row a formset holds, so a rule's message finds its row.
SAVED_LINES = 100_000


@dataclass(frozen=True)
class Elsewhere:
    """A saved row of another part of the page, and where the organiser can correct it."""

    what: str
    part: int | None  # the round whose page shows it; None: the event's page


class EventEntry:
    """The entry page of one event, in parts: the event with its participants, rounds and awards, and
    each round's games (`round_number`). A part's forms are bound to what it posted (all of them, when
    a post sends every formset at once); the other parts are the saved event's.

    is_valid() runs each form's own checks, finds the coaches typed by name, and then runs the rules
    across rows (uploads.check_*) over the whole event, putting every message on the row it is about,
    or, for a row of another part, in `elsewhere` with that part; error_summary() lists them all;
    entries() hands the service what it saves (the whole event). Until is_valid() runs (a page
    given more rows), the typed values are shown without their errors.
    """

    SECTIONS = {
        "participants": gettext_lazy("Participant"), "rounds": gettext_lazy("Round"), "games": gettext_lazy("Game"),
        "awards": gettext_lazy("Award"),
    }
    SECTION_NAMES = {
        "participants": gettext_lazy("Participants"), "rounds": gettext_lazy("Rounds"), "games": gettext_lazy("Games"),
        "awards": gettext_lazy("Awards"),
    }
    COACH_FIELDS = {"participants": ("coach",), "games": ("home_coach", "away_coach"), "awards": ("coach",)}
    EVENT_PART = ("event", "participants", "rounds", "awards")

    def __init__(self, data=None, *, event: Event, round_number: int | None = None, saved: dict | None = None):
        self.event = event
        self.round_number = round_number
        self.checked = False
        # read before the event's form is bound: a bound ModelForm writes what it cleans on the event
        self.saved = saved if saved is not None else self._initial(event)
        shown = {"games"} if round_number is not None else set(self.EVENT_PART)
        if data is not None:  # and whatever else was posted: a post of the whole event at once
            shown |= {name for name in self.SECTIONS if f"{name}-TOTAL_FORMS" in data}
            shown |= {"event"} if any(key.startswith("event-") for key in data) else set()
        self.shown = shown
        self.form = EventForm(data if "event" in shown else None, instance=event, prefix="event")
        # every race dropdown of the page offers, and checks against, this one read of the races
        self.races = _page_races()
        rows = {"races": self.races}
        initial = self._shown_initial() if data is None else {}
        games = initial.get("games") if "games" in shown else None
        if games is not None and round_number is not None:
            games = [g for g in games if g["round"] == round_number]
        self.participants = ParticipantFormSet(
            data if "participants" in shown else None, prefix="participants", initial=initial.get("participants"), form_kwargs=rows)
        self.rounds = RoundFormSet(data if "rounds" in shown else None, prefix="rounds", initial=initial.get("rounds"))
        self.games = GameFormSet(data if "games" in shown else None, prefix="games", initial=games,
                                 form_kwargs={**rows, "round_number": round_number})
        self.awards = AwardFormSet(data if "awards" in shown else None, prefix="awards", initial=initial.get("awards"),
                                   form_kwargs=rows)
        self.unknown_numbers: list[int] = []
        self.elsewhere: list[tuple[Elsewhere, str]] = []

    @staticmethod
    def _initial(event: Event) -> dict:
        games = event.games.select_related("round", "home_coach", "away_coach", "home_race", "away_race").order_by("round__number", "id")
        return {
            "fields": {name: getattr(event, name) for name in EventForm.Meta.fields},
            "participants": [
                {"coach": p.coach.number, "race": p.race.slug}
                for p in event.participants.select_related("coach", "race").order_by("coach__number")
            ],
            "rounds": [{"number": r.number, "date": r.date, "time": r.start_time} for r in event.rounds.order_by("number")],
            "games": [
                {
                    "round": g.round.number, "home_coach": g.home_coach.number, "home_race": g.home_race.slug,
                    "home_td": g.home_touchdowns, "away_td": g.away_touchdowns,
                    "away_coach": g.away_coach.number if g.away_coach_id else None,
                    "away_race": g.away_race.slug if g.away_race_id else None,
                    "home_cas": g.home_casualties, "away_cas": g.away_casualties,
                    "conceded": g.conceded_by or "", "kind": g.kind,
                }
                for g in games
            ],
            "awards": [
                {"category": a.category, "coach": a.coach.number, "race": a.race.slug if a.race_id else None}
                for a in event.awards.select_related("coach", "race")
            ],
        }

    def _shown_initial(self) -> dict:
        """The saved rows as the forms show them: races by name."""
        names = {race.slug: race.name for race in (self.races[slug] for slug in self.races)}

        def named(rows: list[dict], *columns: str) -> list[dict]:
            return [{**row, **{c: names.get(row[c], row[c]) for c in columns if row[c]}} for row in rows]
        return {
            "participants": named(self.saved["participants"], "race"), "rounds": self.saved["rounds"],
            "games": named(self.saved["games"], "home_race", "away_race"), "awards": named(self.saved["awards"], "race"),
        }

    @property
    def formsets(self):
        """The formsets this page shows."""
        return [fs for fs in (self.participants, self.rounds, self.games, self.awards) if fs.prefix in self.shown]

    @property
    def posted(self):
        """The formsets this page checks: those it was posted."""
        return [fs for fs in self.formsets if fs.is_bound]

    def rounds_saved(self) -> list[dict]:
        """The saved rounds, each with its number of games: the parts of the page."""
        counts: dict[int, int] = {}
        for game in self.saved["games"]:
            counts[game["round"]] = counts.get(game["round"], 0) + 1
        return [{**r, "games": counts.get(r["number"], 0)} for r in self.saved["rounds"]]

    def is_valid(self) -> bool:
        self.checked = True
        valid = not self.form.is_bound or self.form.is_valid()
        valid = all([fs.is_valid() for fs in self.posted]) and valid
        # names are looked up on the rows that could be read, so their problems come with the others
        valid = self._find_coaches() and valid
        if not valid:
            return False
        fields = self.form.cleaned_data if self.form.is_bound else self.saved["fields"]
        start, end = fields["start_date"], fields["end_date"]
        self._fields = {name: fields[name] for name in EventForm.Meta.fields}
        self._where: dict[tuple[str, int], Elsewhere] = {}
        participants = [
            ParticipantEntry(line=i, coach=f.cleaned_data["coach"], race=f.cleaned_data["race"].slug)
            for i, f in _kept(self.participants)
        ] if self.participants.is_bound else [
            ParticipantEntry(line=line, coach=row["coach"], race=row["race"]) for line, row, _ in self._saved_rows("participants")
        ]
        registered = {p.coach: p.race for p in participants}
        rounds = [
            RoundEntry(line=i, number=f.cleaned_data["number"], date=f.cleaned_data["date"], time=f.cleaned_data["time"])
            for i, f in _kept(self.rounds)
        ] if self.rounds.is_bound else [
            RoundEntry(line=line, number=row["number"], date=row["date"], time=row["time"]) for line, row, _ in self._saved_rows("rounds")
        ]
        awards = [
            AwardEntry(line=i, category=f.cleaned_data["category"].strip(), coach=f.cleaned_data["coach"],
                       race=f.cleaned_data["race"].slug if f.cleaned_data["race"] else None)
            for i, f in _kept(self.awards)
        ] if self.awards.is_bound else [
            AwardEntry(line=line, category=row["category"], coach=row["coach"], race=row["race"])
            for line, row, _ in self._saved_rows("awards")
        ]
        game_rows = self._game_rows()
        # every number typed, also on game rows that cannot become games: each unknown one is named
        numbers = {p.coach for p in participants} | {a.coach for a in awards} | {
            row[name] for _, row, _ in game_rows for name in ("home_coach", "away_coach") if isinstance(row.get(name), int)
        }
        known = selectors.coach_numbers_known(numbers=numbers)
        self.unknown_numbers = sorted(numbers - known)
        games, problems = self._game_entries({r.number: r for r in rounds}, registered, known, game_rows)
        names = selectors.race_names()
        participant_errors, race_errors = check_participants(participants, games, known_coaches=known, race_names=names)
        self._attach(self.participants, participant_errors)
        self._attach(self.rounds, check_rounds(rounds, start=start, end=end))
        self._attach(self.games, check_results(games, start=start, end=end, known_coaches=known, race_names=names) + race_errors)
        self._attach(self.awards, check_awards(awards, known_coaches=known))
        self._entries = {"participants": participants, "rounds": rounds, "games": games, "awards": awards}
        return not problems and not self.elsewhere and not any(
            form.errors for fs in self.posted for form in fs.forms
        ) and not self.form.errors

    def _saved_rows(self, section: str, rows: list[dict] | None = None, part=None):
        """(line, row, where) of the saved rows of a section this page does not show, numbered after
        any formset's, each noted with the part that shows it."""
        for index, row in enumerate(self.saved[section] if rows is None else rows, start=1):
            where = part(index, row) if part else Elsewhere(f"{self.SECTIONS[section]} {index}", None)
            self._where[(section, SAVED_LINES + index)] = where
            yield SAVED_LINES + index, row, where

    def _game_rows(self) -> list[tuple[int, dict, object]]:
        """(line, values, form or Elsewhere) of every game of the event: the posted rows, races as
        slugs, and the saved games of the rounds this page does not show."""
        rows: list[tuple[int, dict, object]] = []
        if self.games.is_bound:
            for i, form in _kept(self.games):
                data = dict(form.cleaned_data)
                for side in ("home", "away"):
                    race = data.get(f"{side}_race")
                    data[f"{side}_race"] = race.slug if race is not None else None
                rows.append((i, data, form))
        if self.games.is_bound and self.round_number is None:
            return rows  # the whole event's games were posted
        others = [g for g in self.saved["games"] if not self.games.is_bound or g["round"] != self.round_number]
        in_round: dict[int, int] = {}

        def part(_index, row):
            in_round[row["round"]] = in_round.get(row["round"], 0) + 1
            return Elsewhere(_("Round %(round)s, game %(game)s") % {"round": row["round"], "game": in_round[row["round"]]}, row["round"])

        rows += list(self._saved_rows("games", others, part))
        return rows

    def _attach(self, formset, errors) -> None:
        """Put uploads.RowError objects (line = row number) on the formset's forms, or, for a saved
        row of another part, in `elsewhere`."""
        for error in errors:
            where = self._where.get((formset.prefix, error.line))
            if where is not None:
                self.elsewhere.append((where, error.message))
                continue
            form = formset.forms[error.line - 1]
            form.add_error(error.column if error.column in form.fields else None, error.message)

    def _typed_coaches(self):
        """(form, field name, CoachText) of every coach typed as a name on a kept row."""
        for formset in self.posted:
            for _row, form in _kept(formset):
                for name in self.COACH_FIELDS.get(formset.prefix, ()):
                    if isinstance(form.cleaned_data.get(name), CoachText):
                        yield form, name, form.cleaned_data[name]

    def _find_coaches(self) -> bool:
        """Put the federation number in place of every coach typed by name; False (the reasons on
        their fields) when a name finds no one, several coaches, or another coach than its number."""
        typed = list(self._typed_coaches())
        if not typed:
            return True
        names = selectors.coach_names(numbers={text.number for _, _, text in typed if text.number})
        found = selectors.coaches_matching(texts={text.name for _, _, text in typed if text.number is None})
        ok = True
        for form, field, text in typed:
            if text.number is not None:
                actual = names.get(text.number)
                if actual is not None and search_key(actual) != search_key(text.name):
                    mismatch = _("Coach %(number)s is “%(actual)s”, not “%(typed)s”: choose a suggestion or type the number.")
                    form.add_error(field, mismatch % {"number": text.number, "actual": actual, "typed": text.name})
                    ok = False
                    continue
                form.cleaned_data[field] = text.number
                continue
            coaches = found.get(text.name, [])
            if len(coaches) == 1:
                form.cleaned_data[field] = coaches[0][0]
                continue
            ok = False
            if not coaches:
                form.add_error(field, _("No coach is called “%(name)s”: type the coach's federation number.") % {
                    "name": text.name})
            else:
                some = ", ".join(f"{name} ({number})" for number, name in coaches[:5])
                form.add_error(field, _("“%(name)s” could be several coaches: %(some)s. Choose a suggestion or type the number.") % {
                    "name": text.name, "some": some})
        return ok

    def participant_numbers(self) -> list[int] | None:
        """The federation numbers typed in the participant rows, once checked (None: not checked, or not on this page)."""
        if not self.checked or not self.participants.is_bound or not self.participants.is_valid():
            return None
        return [f.cleaned_data["coach"] for _, f in _kept(self.participants) if isinstance(f.cleaned_data.get("coach"), int)]

    def error_summary(self) -> list[tuple[str, str]]:
        """(id of the field, message) of every problem of the page, in the page's order."""
        if not self.checked:
            return []
        items = []
        for name, errors in self.form.errors.items():
            field = self.form[name] if name in self.form.fields else next(iter(self.form))
            where = _("Event, %(field)s") % {"field": field.label} if name in self.form.fields else _("Event")
            items += [(field.id_for_label, f"{where}: {message}") for message in errors]
        for formset in self.posted:
            what = self.SECTIONS[formset.prefix]
            items += [(formset.prefix, f"{self.SECTION_NAMES[formset.prefix]}: {message}") for message in formset.non_form_errors()]
            for row, form in enumerate(formset.forms, start=1):
                for name, errors in form.errors.items():
                    on_field = name in form.fields
                    field = form[name] if on_field else form[next(iter(form.fields))]
                    where = f"{what} {row}, {field.label}" if on_field else f"{what} {row}"
                    items += [(field.id_for_label, f"{where}: {message}") for message in errors]
        return items

    def elsewhere_summary(self) -> list[tuple[int | None, str]]:
        """(round whose page shows it, None: the event's; message) of every problem of a saved row of another part."""
        saved = _("%(where)s (saved): %(message)s")
        return [(where.part, saved % {"where": where.what, "message": message}) for where, message in self.elsewhere]

    def _game_entries(self, by_number: dict, registered: dict, known: set[int], rows) -> tuple[list[GameEntry], bool]:
        """The games as entries, and whether some could not be read (an unknown round, a race that
        is neither chosen nor registered: for a number nobody has, that number is the problem;
        each noted on its form, or for a saved game of another part, in `elsewhere`)."""
        games, problems = [], False
        for i, data, form in rows:
            def note(field: str, message: str, form=form) -> None:
                if isinstance(form, Elsewhere):
                    self.elsewhere.append((form, message))
                else:
                    form.add_error(field, message)

            round_ = by_number.get(data["round"])
            if round_ is None:
                if self.rounds.is_bound:
                    missing = _("Round %(number)s is not in the list of rounds above.")
                else:
                    missing = _("Round %(number)s is not in the list of rounds of the event (its first part).")
                note("round", missing % {"number": data["round"]})
                problems = True
                continue
            bye = data["kind"] == GameKind.BYE
            races = {}
            for side in ("home", "away"):
                number, race = data.get(f"{side}_coach"), data.get(f"{side}_race")
                if side == "away" and bye:
                    races[side] = None
                elif race is not None:
                    races[side] = race
                elif number in registered:
                    races[side] = registered[number]
                elif number not in known:
                    note(f"{side}_coach", _("No coach has federation number %(number)s: create the coach first.") % {"number": number})
                else:
                    note(f"{side}_race", _("Choose the race, or register the coach as a participant."))
            if len(races) < 2:
                problems = True
                continue
            games.append(GameEntry(
                line=i, round=round_.number, date=round_.date, time=round_.time,
                home_coach=data["home_coach"], home_race=races["home"],
                away_coach=None if bye else data["away_coach"], away_race=races["away"],
                home_td=data["home_td"], away_td=data["away_td"], home_cas=data.get("home_cas") or 0,
                away_cas=data.get("away_cas") or 0, conceded=data["conceded"] or None, kind=data["kind"],
            ))
        return games, problems

    def entries(self) -> dict:
        """What event_update takes (the whole event), once is_valid() said yes."""
        return {"fields": self._fields, **self._entries}

    def changed(self) -> bool:
        """Whether the entries, once checked, differ from what is saved (moving between parts of an
        unchanged page saves nothing)."""
        saved = EventEntry(event=self.event, saved=self.saved)
        if not saved.is_valid():
            return True

        def same(entries: dict) -> dict:
            return {name: rows if name == "fields" else sorted((_without_line(entry) for entry in rows), key=repr)
                    for name, rows in entries.items()}
        return same(self.entries()) != same(saved.entries())


def _without_line(entry) -> tuple:
    return tuple((name, value) for name, value in sorted(vars(entry).items()) if name != "line")


class UploadForm(forms.Form):
    ALLOWED_EXTENSIONS = {".csv", ".txt", ".xml"}
    ALLOWED_TYPES = {
        "text/csv", "text/plain", "application/csv", "application/vnd.ms-excel", "text/x-csv", "application/octet-stream",
        "application/xml", "text/xml",
    }

    file = forms.FileField(
        label=gettext_lazy("Results file (CSV)"),
        help_text=format_lazy(
            gettext_lazy("CSV (UTF-8, or UTF-16 with a byte order mark), or a tournament program's NAF report (XML), "
                         "at most {kilobytes} KB and {games} games."),
            kilobytes=MAX_UPLOAD_BYTES // 1024, games=f"{MAX_UPLOAD_GAMES:,}",
        ),
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,text/csv,.xml,application/xml,text/xml"}),
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_UPLOAD_BYTES:
            raise ValidationError(_("The file is %(size)s KB; uploads are limited to %(limit)s KB.") % {
                "size": upload.size // 1024, "limit": MAX_UPLOAD_BYTES // 1024})
        if PurePath(upload.name).suffix.lower() not in self.ALLOWED_EXTENSIONS:
            raise ValidationError(_("Upload a .csv file (comma-separated values) or a NAF report (.xml)."))
        content_type = (getattr(upload, "content_type", "") or "").split(";")[0].strip().lower()
        if content_type and content_type not in self.ALLOWED_TYPES:
            raise ValidationError(_("This file is %(type)s, not CSV text or a NAF report.") % {"type": content_type})
        return upload


class CoachForm(forms.ModelForm):
    class Meta:
        model = Coach
        fields = ["number", "name", "nationality"]
        labels = {"number": gettext_lazy("Number"), "name": gettext_lazy("Name"), "nationality": gettext_lazy("Nationality")}


class NewCoachForm(forms.Form):
    """One coach to create from an upload's unknown federation numbers."""

    number = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    name = forms.CharField(max_length=200)
    create = forms.BooleanField(required=False, initial=True)


NewCoachFormSet = formset_factory(NewCoachForm, extra=0)


class ConfirmForm(forms.Form):
    """A plain confirmation (the digest ties it to what was previewed)."""

    digest = forms.CharField(widget=forms.HiddenInput, required=False)


class SanctionForm(forms.Form):
    """The sanction; of a likely duplicate, only with the box ticked and a reason (the service checks again)."""

    note = forms.CharField(required=False, max_length=1000, widget=forms.Textarea(attrs={"rows": 2}), label=gettext_lazy("Note (optional)"))
    duplicate_confirmed = forms.BooleanField(
        required=False, label=gettext_lazy("I have checked the likely duplicates above: this event is not one of them"), label_suffix="",
    )
    duplicate_reason = forms.CharField(
        required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2}), label=gettext_lazy("Why it is not a duplicate"),
        help_text=gettext_lazy("Recorded in the audit log with the events it resembles."),
    )

    def __init__(self, *args, likely_duplicate: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.likely_duplicate = likely_duplicate

    def clean(self):
        data = super().clean()
        if self.likely_duplicate:
            if not data.get("duplicate_confirmed"):
                self.add_error("duplicate_confirmed", _("This event is a likely duplicate: tick the box to sanction it all the same."))
            if not (data.get("duplicate_reason") or "").strip():
                self.add_error("duplicate_reason", _("Say why it is not a duplicate: the reason goes into the audit log."))
        return data


class RejectForm(forms.Form):
    reason = forms.CharField(
        max_length=2000, widget=forms.Textarea(attrs={"rows": 3}), label=gettext_lazy("Reason"),
        help_text=gettext_lazy("The organiser sees this reason on the event's page."),
        error_messages={"required": gettext_lazy("Give the organiser a reason for the rejection.")},
    )


class GameCorrectionForm(forms.Form):
    game = forms.IntegerField(widget=forms.HiddenInput)
    home_touchdowns = _score(gettext_lazy("Home TD"), MAX_TOUCHDOWNS, "touchdowns")
    away_touchdowns = _score(gettext_lazy("Away TD"), MAX_TOUCHDOWNS, "touchdowns")
    home_casualties = _score(gettext_lazy("Home CAS"), MAX_CASUALTIES, "casualties")
    away_casualties = _score(gettext_lazy("Away CAS"), MAX_CASUALTIES, "casualties")
    conceded_by = forms.ChoiceField(choices=[("", "—"), *Side.choices], required=False, label=gettext_lazy("Conceded"))
    kind = forms.ChoiceField(choices=GameKind.choices, label=gettext_lazy("Kind"))
    note = forms.CharField(max_length=500, label=gettext_lazy("Reason for the correction"),
                           error_messages={"required": gettext_lazy("Say why the result is corrected (it goes in the audit log).")})

    def changes(self) -> dict:
        data = self.cleaned_data
        return {
            "home_touchdowns": data["home_touchdowns"], "away_touchdowns": data["away_touchdowns"],
            "home_casualties": data["home_casualties"], "away_casualties": data["away_casualties"],
            "conceded_by": data["conceded_by"] or None, "kind": data["kind"],
        }


class CoachMergeForm(forms.Form):
    keep = forms.IntegerField(label=gettext_lazy("Keep coach (federation number)"), min_value=1, widget=NUMBER)
    duplicate = forms.IntegerField(label=gettext_lazy("Duplicate to fold into it (federation number)"), min_value=1, widget=NUMBER)

    def _coach(self, name: str):
        number = self.cleaned_data.get(name)
        if number is None:
            return None
        coach = Coach.objects.filter(number=number).first()
        if coach is None:
            self.add_error(name, _("No coach has federation number %(number)s.") % {"number": number})
        return coach

    def clean(self):
        cleaned = super().clean()
        cleaned["keep_coach"], cleaned["duplicate_coach"] = self._coach("keep"), self._coach("duplicate")
        if cleaned.get("keep") is not None and cleaned.get("keep") == cleaned.get("duplicate"):
            self.add_error("duplicate", _("Choose two different coaches to merge."))
        return cleaned


class LinkCoachForm(forms.Form):
    coach = forms.IntegerField(label=gettext_lazy("Coach (federation number)"), required=False, min_value=1, widget=NUMBER,
                               help_text=gettext_lazy("Empty: unlink the account from its coach."))

    def clean_coach(self):
        number = self.cleaned_data["coach"]
        if number is None:
            return None
        coach = Coach.objects.filter(number=number).first()
        if coach is None:
            raise ValidationError(_("No coach has federation number %(number)s.") % {"number": number})
        return coach



class CoachPrivacyForm(forms.Form):
    """What the public sees of a coach: his name, a pseudonym, or the anonymous label (staff on his
    behalf now; the member's own page will use the same form and service)."""

    visibility = forms.ChoiceField(
        label=gettext_lazy("Shown to the public"), choices=Visibility.choices, widget=forms.RadioSelect,
        error_messages={"invalid_choice": gettext_lazy("“%(value)s” is no choice of what the public sees: choose one of the three.")},
    )
    pseudonym = forms.CharField(label=gettext_lazy("Pseudonym"), required=False, max_length=100,
                                help_text=gettext_lazy("Shown instead of the name when “Pseudonym shown” is chosen."))

    def clean(self):
        data = super().clean()
        if data.get("visibility") == Visibility.PSEUDONYM and not (data.get("pseudonym") or "").strip():
            self.add_error("pseudonym", _("Give the pseudonym to show."))
        return data
