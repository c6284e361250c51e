"""Forms of the organiser, staff and account pages: they parse input; the services decide and write."""
import hashlib
from pathlib import PurePath

from django import forms
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.core.cache import caches
from django.core.exceptions import ValidationError
from django.forms import formset_factory
from django.forms.models import ModelChoiceIterator
from django.utils import timezone

from . import selectors
from .models import Coach, Event, GameKind, PlayDateValidator, Race, Side
from .uploads import (
    FIRST_PLAY_DATE,
    MAX_CASUALTIES,
    MAX_TOUCHDOWNS,
    MAX_UPLOAD_BYTES,
    MAX_UPLOAD_GAMES,
    AwardEntry,
    GameEntry,
    ParticipantEntry,
    RoundEntry,
    check_awards,
    check_participants,
    check_results,
    check_rounds,
    last_play_date,
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


class LoginForm(AuthenticationForm):
    """Django's login form, refusing a username after repeated failures from the same address."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "rate_limited": "Too many failed attempts to log in as %(username)s from your address. "
                        "Wait %(minutes)d minutes and try again, or reset your password.",
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
        try:
            cleaned = super().clean()
        except ValidationError:
            attempts.failed()
            raise
        attempts.succeeded()
        return cleaned


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
        help_texts = {"latitude": "Decimal degrees, −90 to 90 (for the map).", "longitude": "Decimal degrees, −180 to 180."}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _date_window(self.fields["start_date"], self.fields["end_date"])

    def clean(self):
        cleaned = super().clean()
        start, end = cleaned.get("start_date"), cleaned.get("end_date")
        if start and end and end < start:
            self.add_error("end_date", "The event cannot end before it starts.")
        for name, limit in (("latitude", 90), ("longitude", 180)):
            value = cleaned.get(name)
            if value is not None and not -limit <= value <= limit:
                self.add_error(name, f"A {name} lies between −{limit} and {limit}.")
        return cleaned


def _ranked_races():
    return Race.objects.filter(ranked=True).order_by("name")


def _ranked_races_by_slug() -> dict[str, Race]:
    """The ranked races by slug, in the order the dropdowns offer them: one query for a whole page."""
    return {race.slug: race for race in _ranked_races()}


class RaceChoiceIterator(ModelChoiceIterator):
    """A RaceField's options from the races it was handed, if any, instead of a query per dropdown."""

    def __iter__(self):
        if self.field.races is None:
            yield from super().__iter__()
            return
        if self.field.empty_label is not None:
            yield ("", self.field.empty_label)
        for race in self.field.races.values():
            yield self.choice(race)

    def __len__(self):
        if self.field.races is None:
            return super().__len__()
        return len(self.field.races) + (1 if self.field.empty_label is not None else 0)

    def __bool__(self):
        if self.field.races is None:
            return super().__bool__()
        return self.field.empty_label is not None or bool(self.field.races)


class RaceField(forms.ModelChoiceField):
    """A ranked race, chosen by its slug.

    A form may hand it `races` (_ranked_races_by_slug(), shared by every row of a formset); it then
    offers and finds those without a query. Not handed any, it queries as a ModelChoiceField does.
    """

    iterator = RaceChoiceIterator

    def __init__(self, **kwargs):
        kwargs.setdefault("error_messages", {"invalid_choice": "Choose one of the federation's ranked races."})
        self.races: dict[str, Race] | None = None
        super().__init__(queryset=_ranked_races(), to_field_name="slug", **kwargs)

    def to_python(self, value):
        if self.races is None:
            return super().to_python(value)
        if value in self.empty_values:
            return None
        self.validate_no_null_characters(value)
        race = self.races.get(value.slug if isinstance(value, Race) else str(value))
        if race is None:
            raise ValidationError(self.error_messages["invalid_choice"], code="invalid_choice", params={"value": value})
        return race


class _RaceRowForm(forms.Form):
    """A row with RaceFields, taking the page's races once through the formset's form_kwargs."""

    def __init__(self, *args, races: dict[str, Race] | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            if isinstance(field, RaceField):
                field.races = races


def _number(label: str = "Federation number", required: bool = True) -> forms.IntegerField:
    return forms.IntegerField(label=label, required=required, min_value=1, widget=NUMBER)


def _score(label: str, limit: int, what: str, *, required: bool = True) -> forms.IntegerField:
    return forms.IntegerField(
        label=label, required=required, min_value=0, max_value=limit, initial=0, widget=NUMBER,
        error_messages={
            "min_value": f"The number of {what} cannot be negative.",
            "max_value": f"That is not a believable number of {what}: at most %(limit_value)s.",
        },
    )


class ParticipantForm(_RaceRowForm):
    coach = _number()
    race = RaceField()


class RoundForm(forms.Form):
    number = forms.IntegerField(min_value=1, max_value=99, widget=NUMBER)
    date = forms.DateField(widget=DATE)
    time = forms.TimeField(required=False, widget=TIME, help_text="Start (orders the rounds of a day).")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        _date_window(self.fields["date"])


class GameForm(_RaceRowForm):
    round = forms.IntegerField(min_value=1, max_value=99, widget=NUMBER)
    home_coach = _number("Home coach")
    home_race = RaceField(required=False, help_text="Empty: the race he is registered with.")
    home_td = _score("Home TD", MAX_TOUCHDOWNS, "touchdowns")
    away_td = _score("Away TD", MAX_TOUCHDOWNS, "touchdowns")
    away_coach = _number("Away coach", required=False)
    away_race = RaceField(required=False)
    home_cas = _score("Home CAS", MAX_CASUALTIES, "casualties", required=False)
    away_cas = _score("Away CAS", MAX_CASUALTIES, "casualties", required=False)
    conceded = forms.ChoiceField(choices=[("", "—"), *Side.choices], required=False)
    kind = forms.ChoiceField(choices=GameKind.choices, initial=GameKind.PLAYED)

    def clean(self):
        cleaned = super().clean()
        bye = cleaned.get("kind") == GameKind.BYE
        if bye and (cleaned.get("away_coach") or cleaned.get("away_race")):
            self.add_error("away_coach", "A bye has no opponent: leave the away coach empty.")
        if not bye and "away_coach" in cleaned and cleaned.get("away_coach") is None:
            self.add_error("away_coach", "Give the away coach's federation number (or make the game a bye).")
        if bye and cleaned.get("conceded"):
            self.add_error("conceded", "Nobody concedes a bye.")
        return cleaned


class AwardForm(_RaceRowForm):
    category = forms.CharField(max_length=100)
    coach = _number()
    race = RaceField(required=False)


ParticipantFormSet = formset_factory(ParticipantForm, extra=4, can_delete=True)
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


def _attach(formset, errors) -> None:
    """Put uploads.RowError objects (line = row number) on the formset's forms."""
    for error in errors:
        form = formset.forms[error.line - 1]
        form.add_error(error.column if error.column in form.fields else None, error.message)


class EventEntry:
    """The whole entry page of one event: its form and the participant, round, game and award formsets.

    is_valid() runs each form's own checks and then the rules across rows (uploads.check_*), putting
    every message on the row it is about; entries() hands the service what it saves.
    """

    def __init__(self, data=None, *, event: Event):
        self.event = event
        initial = self._initial(event) if data is None else {}
        self.form = EventForm(data, instance=event, prefix="event")
        # every race dropdown of the page offers, and checks against, this one read of the races
        rows = {"races": _ranked_races_by_slug()}
        self.participants = ParticipantFormSet(data, prefix="participants", initial=initial.get("participants"), form_kwargs=rows)
        self.rounds = RoundFormSet(data, prefix="rounds", initial=initial.get("rounds"))
        self.games = GameFormSet(data, prefix="games", initial=initial.get("games"), form_kwargs=rows)
        self.awards = AwardFormSet(data, prefix="awards", initial=initial.get("awards"), form_kwargs=rows)
        self.unknown_numbers: list[int] = []

    @staticmethod
    def _initial(event: Event) -> dict:
        games = event.games.select_related("round", "home_coach", "away_coach", "home_race", "away_race").order_by("round__number", "id")
        return {
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

    @property
    def formsets(self):
        return [self.participants, self.rounds, self.games, self.awards]

    def is_valid(self) -> bool:
        valid = self.form.is_valid()
        valid = all([fs.is_valid() for fs in self.formsets]) and valid
        if not valid:
            return False
        start, end = self.form.cleaned_data["start_date"], self.form.cleaned_data["end_date"]
        participants = [
            ParticipantEntry(line=i, coach=f.cleaned_data["coach"], race=f.cleaned_data["race"].slug)
            for i, f in _kept(self.participants)
        ]
        registered = {p.coach: p.race for p in participants}
        rounds = [
            RoundEntry(line=i, number=f.cleaned_data["number"], date=f.cleaned_data["date"], time=f.cleaned_data["time"])
            for i, f in _kept(self.rounds)
        ]
        games, problems = self._game_entries({r.number: r for r in rounds}, registered)
        awards = [
            AwardEntry(line=i, category=f.cleaned_data["category"].strip(), coach=f.cleaned_data["coach"],
                       race=f.cleaned_data["race"].slug if f.cleaned_data["race"] else None)
            for i, f in _kept(self.awards)
        ]
        numbers = {p.coach for p in participants} | {a.coach for a in awards} | {n for g in games for _, n, _ in g.coaches()}
        known = selectors.coach_numbers_known(numbers=numbers)
        self.unknown_numbers = sorted(numbers - known)
        names = selectors.race_names()
        participant_errors, race_errors = check_participants(participants, games, known_coaches=known, race_names=names)
        _attach(self.participants, participant_errors)
        _attach(self.rounds, check_rounds(rounds, start=start, end=end))
        _attach(self.games, check_results(games, start=start, end=end, known_coaches=known, race_names=names) + race_errors)
        _attach(self.awards, check_awards(awards, known_coaches=known))
        self._entries = {"participants": participants, "rounds": rounds, "games": games, "awards": awards}
        return not problems and not any(
            form.errors for fs in self.formsets for form in fs.forms
        ) and not self.form.errors

    def _game_entries(self, by_number: dict, registered: dict) -> tuple[list[GameEntry], bool]:
        """The games as entries, and whether some could not be read (an unknown round, a race that
        is neither chosen nor registered; each noted on its form)."""
        games, problems = [], False
        for i, form in _kept(self.games):
            data = form.cleaned_data
            round_ = by_number.get(data["round"])
            if round_ is None:
                form.add_error("round", f"Round {data['round']} is not in the list of rounds above.")
                problems = True
                continue
            bye = data["kind"] == GameKind.BYE
            races = {}
            for side in ("home", "away"):
                number, race = data.get(f"{side}_coach"), data.get(f"{side}_race")
                if side == "away" and bye:
                    races[side] = None
                elif race is not None:
                    races[side] = race.slug
                elif number in registered:
                    races[side] = registered[number]
                else:
                    form.add_error(f"{side}_race", "Choose the race, or register the coach as a participant.")
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
        """What event_update takes, once is_valid() said yes."""
        return {"fields": {name: self.form.cleaned_data[name] for name in EventForm.Meta.fields}, **self._entries}


class UploadForm(forms.Form):
    ALLOWED_EXTENSIONS = {".csv", ".txt"}
    ALLOWED_TYPES = {"text/csv", "text/plain", "application/csv", "application/vnd.ms-excel", "text/x-csv", "application/octet-stream"}

    file = forms.FileField(
        label="Results file (CSV)",
        help_text=f"UTF-8 CSV, at most {MAX_UPLOAD_BYTES // 1024} KB and {MAX_UPLOAD_GAMES:,} games.",
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,text/csv"}),
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > MAX_UPLOAD_BYTES:
            raise ValidationError(f"The file is {upload.size // 1024} KB; uploads are limited to {MAX_UPLOAD_BYTES // 1024} KB.")
        if PurePath(upload.name).suffix.lower() not in self.ALLOWED_EXTENSIONS:
            raise ValidationError("Upload a .csv file (comma-separated values).")
        content_type = (getattr(upload, "content_type", "") or "").split(";")[0].strip().lower()
        if content_type and content_type not in self.ALLOWED_TYPES:
            raise ValidationError(f"This file is {content_type}, not CSV text.")
        return upload


class CoachForm(forms.ModelForm):
    class Meta:
        model = Coach
        fields = ["number", "name", "nationality"]


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
    note = forms.CharField(required=False, max_length=1000, widget=forms.Textarea(attrs={"rows": 2}), label="Note (optional)")


class RejectForm(forms.Form):
    reason = forms.CharField(
        max_length=2000, widget=forms.Textarea(attrs={"rows": 3}),
        help_text="The organiser sees this reason on his event page.",
        error_messages={"required": "Give the organiser a reason for the rejection."},
    )


class GameCorrectionForm(forms.Form):
    game = forms.IntegerField(widget=forms.HiddenInput)
    home_touchdowns = _score("Home TD", MAX_TOUCHDOWNS, "touchdowns")
    away_touchdowns = _score("Away TD", MAX_TOUCHDOWNS, "touchdowns")
    home_casualties = _score("Home CAS", MAX_CASUALTIES, "casualties")
    away_casualties = _score("Away CAS", MAX_CASUALTIES, "casualties")
    conceded_by = forms.ChoiceField(choices=[("", "—"), *Side.choices], required=False, label="Conceded")
    kind = forms.ChoiceField(choices=GameKind.choices)
    note = forms.CharField(max_length=500, label="Reason for the correction",
                           error_messages={"required": "Say why the result is corrected (it goes in the audit log)."})

    def changes(self) -> dict:
        data = self.cleaned_data
        return {
            "home_touchdowns": data["home_touchdowns"], "away_touchdowns": data["away_touchdowns"],
            "home_casualties": data["home_casualties"], "away_casualties": data["away_casualties"],
            "conceded_by": data["conceded_by"] or None, "kind": data["kind"],
        }


class CoachMergeForm(forms.Form):
    keep = forms.IntegerField(label="Keep coach (federation number)", min_value=1, widget=NUMBER)
    duplicate = forms.IntegerField(label="Duplicate to fold into it (federation number)", min_value=1, widget=NUMBER)

    def _coach(self, name: str):
        number = self.cleaned_data.get(name)
        if number is None:
            return None
        coach = Coach.objects.filter(number=number).first()
        if coach is None:
            self.add_error(name, f"No coach has federation number {number}.")
        return coach

    def clean(self):
        cleaned = super().clean()
        cleaned["keep_coach"], cleaned["duplicate_coach"] = self._coach("keep"), self._coach("duplicate")
        if cleaned.get("keep") is not None and cleaned.get("keep") == cleaned.get("duplicate"):
            self.add_error("duplicate", "Choose two different coaches to merge.")
        return cleaned


class LinkCoachForm(forms.Form):
    coach = forms.IntegerField(label="Coach (federation number)", required=False, min_value=1, widget=NUMBER,
                               help_text="Empty: unlink the account from its coach.")

    def clean_coach(self):
        number = self.cleaned_data["coach"]
        if number is None:
            return None
        coach = Coach.objects.filter(number=number).first()
        if coach is None:
            raise ValidationError(f"No coach has federation number {number}.")
        return coach

