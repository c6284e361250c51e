"""Filters of the staff lists: every filter lives in the query string, so a filtered list is a link."""
import django_filters
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from django_filters.widgets import DateRangeWidget

from audit.models import Action, AuditRecord

from .models import Event, EventStatus


def _distinct(field: str, labels=None):
    """The values the audit records hold in `field`, each shown by its label in `labels` (if any)."""
    labels = labels or {}

    def choices():
        values = AuditRecord.objects.order_by(field).values_list(field, flat=True).distinct()
        return [(value, labels.get(value, value)) for value in values]
    return choices


def _date_range() -> DateRangeWidget:
    """Two date boxes under one label ("Date"): each is also named on its own, for screen readers."""
    widget = DateRangeWidget(attrs={"type": "date"})
    widget.widgets[0].attrs["aria-label"] = _("Date from")
    widget.widgets[1].attrs["aria-label"] = _("Date to")
    return widget


class AuditFilter(django_filters.FilterSet):
    person = django_filters.CharFilter(field_name="actor__username", lookup_expr="icontains", label=_("Person"))
    object_type = django_filters.ChoiceFilter(choices=_distinct("object_type"), label=_("Kind of object"))
    object = django_filters.CharFilter(method="filter_object", label=_("Object"), help_text=_("Name or id."))
    action = django_filters.ChoiceFilter(choices=_distinct("action", dict(Action.choices)), label=_("Action"))
    date = django_filters.DateFromToRangeFilter(
        field_name="at__date", label=_("Date"), widget=_date_range()
    )

    class Meta:
        model = AuditRecord
        fields = []

    def filter_object(self, queryset, name, value):
        value = value.strip()
        return queryset.filter(Q(object_repr__icontains=value) | Q(object_id=value)) if value else queryset


class EventQueueFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=EventStatus.choices, empty_label=_("any status"), label=_("Status"))
    name = django_filters.CharFilter(lookup_expr="icontains", label=_("Name"))
    organiser = django_filters.CharFilter(field_name="organiser__username", lookup_expr="icontains", label=_("Organiser"))

    class Meta:
        model = Event
        fields = []
