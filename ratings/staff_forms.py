"""Forms of the staff's rating pages: they parse input; the services decide and write."""
from django import forms
from django.core.exceptions import ValidationError

from ratings.models import RatingSystem
from tournaments.forms import NUMBER
from tournaments.models import Race, Variant


class RatingSystemForm(forms.Form):
    parameters = forms.JSONField(
        required=False, widget=forms.Textarea(attrs={"rows": 8, "class": "code"}),
        help_text="Engine parameters as a JSON object; the engine checks every name and value.",
        error_messages={"invalid": "This is not valid JSON."},
    )
    inactive_after_months = forms.IntegerField(required=False, min_value=1, max_value=240, widget=NUMBER)
    variants = forms.ModelMultipleChoiceField(queryset=Variant.objects.all(), required=False,
                                              widget=forms.CheckboxSelectMultiple, help_text="None ticked: every variant.")
    excluded_races = forms.ModelMultipleChoiceField(queryset=Race.objects.order_by("name"), required=False,
                                                    widget=forms.CheckboxSelectMultiple)

    def clean_parameters(self):
        parameters = self.cleaned_data["parameters"]
        if parameters is None:
            return {}
        if not isinstance(parameters, dict):
            raise ValidationError("The parameters must be a JSON object, e.g. {\"k\": 10}.")
        return parameters

    @classmethod
    def for_system(cls, system: RatingSystem, data=None):
        return cls(data, initial={
            "parameters": system.parameters, "inactive_after_months": system.inactive_after_months,
            "variants": list(system.variants.all()), "excluded_races": list(system.excluded_races.all()),
        })
