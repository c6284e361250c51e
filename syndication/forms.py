"""The choices of the embeds page: which system, country, race and coach its snippets show."""
from django import forms
from django.utils.translation import gettext_lazy as _
from django_countries import countries

from ratings.selectors import feeds as reads


class EmbedForm(forms.Form):
    system = forms.ChoiceField(label=_("Rating system"), required=False)
    country = forms.ChoiceField(label=_("Nationality"), required=False)
    race = forms.ModelChoiceField(queryset=reads.embed_races(), to_field_name="slug", required=False, label=_("Race"))
    number = forms.IntegerField(label=_("Coach number"), required=False, min_value=1, max_value=999_999_999)

    def __init__(self, *args, systems, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["system"].choices = [(system.slug, system.name) for system in systems]
        self.fields["country"].choices = [("", _("Choose a country")), *countries]
        self.fields["race"].empty_label = _("Choose a race")
