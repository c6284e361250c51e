"""Forms of the statistics pages that choose coaches rather than filter games."""
from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from ratings.selectors import active_systems
from ratingsite.widgets import FastSelect
from tournaments.models import Coach, Race, Variant, search_key
from tournaments.selectors import coach_search_q

from .filters import CoachNumberField
from .selectors import HEAD_TO_HEAD_MAX

HEAD_TO_HEAD_SLOTS = HEAD_TO_HEAD_MAX


def coach_lookup(text: str) -> Coach:
    """A coach by federation number, by exact name, or by the one name holding the text's words
    (whatever the case and accents: coach_search_q)."""
    text = text.strip()
    if text.isdigit():
        coach = Coach.objects.filter(number=int(text)).first()
        if coach is None:
            raise forms.ValidationError(_("No coach has the federation number %(number)s.") % {"number": text})
        return coach
    key = search_key(text)
    exact = list(Coach.objects.filter(public_search_name=key)[:2]) if key else []
    if len(exact) == 1:
        return exact[0]
    found = Coach.objects.filter(coach_search_q(text, numbers=False, public=True))
    candidates = exact or list(found.order_by("public_search_name", "number")[:6])
    if not candidates:
        raise forms.ValidationError(_("No coach is called “%(name)s”.") % {"name": text})
    if len(candidates) > 1:
        shown = ", ".join(f"{c.public_name} ({c.number})" for c in candidates[:5])
        if len(candidates) > 5:
            message = _("“%(name)s” matches several coaches: %(shown)s and more. Use a federation number.")
        else:
            message = _("“%(name)s” matches several coaches: %(shown)s. Use a federation number.")
        raise forms.ValidationError(message % {"name": text, "shown": shown})
    return candidates[0]


class RepeatedTextInput(forms.TextInput):
    """One query parameter given several times (?coach=1&coach=2): the field sees the list."""

    def value_from_datadict(self, data, files, name):
        return data.getlist(name) if hasattr(data, "getlist") else data.get(name, [])


class CoachListField(forms.Field):
    widget = RepeatedTextInput

    def __init__(self, *, max_coaches: int, **kwargs):
        self.max_coaches = max_coaches
        super().__init__(**kwargs)

    def to_python(self, value):
        return [text.strip() for text in (value or []) if text and text.strip()]

    def validate(self, value):
        if len(value) > self.max_coaches:
            raise forms.ValidationError(
                _("Head-to-head compares at most %(most)s coaches; you chose %(chosen)s. Remove %(extra)s.")
                % {"most": self.max_coaches, "chosen": len(value), "extra": len(value) - self.max_coaches}
            )

    def clean(self, value):
        texts = self.to_python(value)
        self.validate(texts)
        coaches, errors = [], []
        for text in texts:
            try:
                coach = coach_lookup(text)
            except forms.ValidationError as error:
                errors.extend(error.messages)
                continue
            if coach not in coaches:
                coaches.append(coach)
        if errors:
            raise forms.ValidationError(errors)
        return coaches


class HeadToHeadForm(forms.Form):
    coach = CoachListField(max_coaches=HEAD_TO_HEAD_MAX, required=False, label=gettext_lazy("Coaches (name or federation number)"))

    def entered(self) -> list[str]:
        """What was typed, for the inputs to show again (at least the eight slots)."""
        values = [v for v in self.data.getlist("coach")] if hasattr(self.data, "getlist") else []
        return values + [""] * max(0, HEAD_TO_HEAD_SLOTS - len(values))


class RankOverTimeForm(forms.Form):
    coach = CoachNumberField(required=False, label=gettext_lazy("Coach (federation number)"))
    system = forms.ModelChoiceField(
        queryset=active_systems(), to_field_name="slug", required=False, empty_label=None, widget=FastSelect,
        label=gettext_lazy("Rating system"), error_messages={"invalid_choice": gettext_lazy("No rating system is called “%(value)s”.")},
    )
    race = forms.ModelChoiceField(
        queryset=Race.objects.all(), to_field_name="slug", required=False, widget=FastSelect,
        empty_label=gettext_lazy("Choose a race"), label=gettext_lazy("Race"),
        error_messages={"invalid_choice": gettext_lazy("No race is called “%(value)s”.")},
    )
    variant = forms.ModelChoiceField(
        queryset=Variant.objects.all(), to_field_name="slug", required=False, widget=FastSelect,
        empty_label=gettext_lazy("Any variant"), label=gettext_lazy("Variant"),
        error_messages={"invalid_choice": gettext_lazy("No variant is called “%(value)s”.")},
    )

    def clean_system(self):
        return self.cleaned_data.get("system") or active_systems().first()

    def messages(self) -> list[str]:
        return [f"{self.fields[name].label}: {error}" for name, errors in self.errors.items() for error in errors]
