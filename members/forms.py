from django import forms
from django.conf import settings
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from tournaments.models import Visibility


class SignUpForm(UserCreationForm):
    email = forms.EmailField(
        label=_("E-mail address"), max_length=254, help_text=_("We send a link to it: your account opens once you follow it."),
    )

    class Meta(UserCreationForm.Meta):
        fields = ("username", "email")


class ClaimCodeForm(forms.Form):
    number = forms.IntegerField(label=_("Coach number"), min_value=1, help_text=_("Your federation number."))
    code = forms.CharField(
        label=_("Claim code"), max_length=20, help_text=_("As printed beside your name on an event's results (XXXXX-XXXXX)."),
    )


class ClaimRequestForm(forms.Form):
    number = forms.IntegerField(label=_("Coach number"), min_value=1)
    note = forms.CharField(
        label=_("Message to the staff"), required=False, max_length=1000, widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("What shows the record is yours: events you played, your name on them."),
    )


class PreferencesForm(forms.Form):
    email_notices = forms.BooleanField(label=_("Send my notices by e-mail too"), required=False)
    systems = forms.TypedMultipleChoiceField(
        label=_("Rating systems to hear of"), coerce=int, required=False, widget=forms.CheckboxSelectMultiple,
        help_text=_("None chosen: every system."),
    )
    language = forms.ChoiceField(
        label=_("Language of our e-mails"), choices=settings.LANGUAGES, required=False,  # left out: as it was
        help_text=_("Notices, confirmations and password resets are written in it."),
        error_messages={"invalid_choice": _("“%(value)s” is not a language of this site: choose one from the list.")},
    )

    def __init__(self, *args, systems: list[tuple[int, str]], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["systems"].choices = systems


class DecisionForm(forms.Form):
    decision = forms.ChoiceField(label=_("Decision"), choices=[("approve", _("Approve")), ("refuse", _("Refuse"))])
    reason = forms.CharField(label=_("Reason (told to the member)"), required=False, max_length=1000)


class ReleaseForm(forms.Form):
    reason = forms.CharField(label=_("Why release this claim"), max_length=1000)


class MemberPrivacyForm(forms.Form):
    """What the public sees of the member's own coach record (tournaments.privacy.coach_privacy_set decides)."""

    visibility = forms.ChoiceField(label=_("Shown to the public"), widget=forms.RadioSelect, choices=[
        (Visibility.PUBLIC, _("My name")),
        (Visibility.PSEUDONYM, _("A pseudonym of my choice")),
        (Visibility.HIDDEN, _("Nothing: an anonymous label (“Anonymous coach” and a code of my own)")),
    ])
    pseudonym = forms.CharField(
        label=_("Pseudonym"), required=False, max_length=100,
        help_text=_("Shown instead of your name when you choose a pseudonym."),
    )

    def clean(self):
        data = super().clean()
        if data.get("visibility") == Visibility.PSEUDONYM and not " ".join((data.get("pseudonym") or "").split()):
            self.add_error("pseudonym", _("Give the pseudonym to show."))
        return data
