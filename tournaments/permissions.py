"""Who may do what: the three roles as groups of permissions, and the checks every organiser and staff view makes.

The groups are created by a data migration (tournaments 0004) from ROLE_PERMISSIONS; `groups_sync`
can be run again at any time to bring them back in line.
"""
from functools import wraps

from django.apps import apps as global_apps
from django.contrib.auth.management import create_permissions
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db import DEFAULT_DB_ALIAS

from .models import Event

MEMBERS, ORGANISERS, STAFF = "members", "organisers", "staff"

# Permissions no model declares: created with the groups (app label, model, codename, name).
CUSTOM_PERMISSIONS = [
    ("tournaments", "event", "sanction_event", "Can sanction or reject events"),
    ("tournaments", "coach", "merge_coach", "Can merge two coaches"),
]

_MEMBER = ["tournaments.view_coach", "tournaments.view_event"]
# Organisers change only their own events; that check is by ownership (events_for), not a permission.
_ORGANISER = _MEMBER + [
    "tournaments.add_event",
    "tournaments.add_coach",
    *(f"tournaments.add_{model}" for model in ("participant", "round", "game", "award")),
    "tournaments.view_race",
    "tournaments.view_variant",
]
_STAFF = _ORGANISER + [
    "tournaments.change_event",
    *(f"tournaments.{action}_{model}" for model in ("participant", "round", "game", "award")
      for action in ("change", "delete", "view")),
    "tournaments.sanction_event",
    "tournaments.change_coach",
    "tournaments.merge_coach",
    "audit.view_auditrecord",
    "ratings.view_ratingsystem",
    "ratings.change_ratingsystem",
    "ratings.view_recalculationrun",
    "ratings.add_recalculationrun",
    "auth.view_user",
]
ROLE_PERMISSIONS = {MEMBERS: _MEMBER, ORGANISERS: _ORGANISER, STAFF: _STAFF}

# What each page asks for: organisers and staff both enter events; the rest is staff's.
ENTER_EVENTS = "tournaments.add_event"
CREATE_COACHES = "tournaments.add_coach"
ANY_EVENT = "tournaments.change_event"
SANCTION_EVENTS = "tournaments.sanction_event"
CORRECT_RESULTS = "tournaments.change_game"
MERGE_COACHES = "tournaments.merge_coach"
LINK_ACCOUNTS = "tournaments.change_coach"
MANAGE_PRIVACY = "tournaments.change_coach"
READ_AUDIT = "audit.view_auditrecord"
CONFIGURE_SYSTEMS = "ratings.change_ratingsystem"
READ_RUNS = "ratings.view_recalculationrun"
RERUN = "ratings.add_recalculationrun"


def groups_sync(*, apps=global_apps, using: str = DEFAULT_DB_ALIAS) -> None:
    """Create (or repair) the members, organisers and staff groups with exactly their permissions."""
    for label in ("auth", "tournaments", "ratings", "audit"):
        create_permissions(global_apps.get_app_config(label), apps=apps, using=using, verbosity=0)
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    Group = apps.get_model("auth", "Group")
    for app_label, model, codename, name in CUSTOM_PERMISSIONS:
        content_type, _ = ContentType.objects.using(using).get_or_create(app_label=app_label, model=model)
        Permission.objects.using(using).get_or_create(content_type=content_type, codename=codename, defaults={"name": name})
    for group_name, names in ROLE_PERMISSIONS.items():
        group, _ = Group.objects.using(using).get_or_create(name=group_name)
        permissions = []
        for dotted in names:
            app_label, codename = dotted.split(".")
            found = Permission.objects.using(using).filter(content_type__app_label=app_label, codename=codename).first()
            if found is not None:  # an app migrated later (audit) adds its own when it syncs the groups again
                permissions.append(found)
        group.permissions.set(permissions)


def permission_required(*permissions: str):
    """A view for signed-in users holding every permission: visitors go to the login page, others get 403."""
    def decorator(view):
        @wraps(view)
        def wrapped(request, *args, **kwargs):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            if not request.user.has_perms(permissions):
                raise PermissionDenied("Your account does not have the role this page needs.")
            return view(request, *args, **kwargs)
        return wrapped
    return decorator


def events_for(user):
    """The events a user may open in the organiser pages: his own, or every event for staff."""
    events = Event.objects.select_related("variant", "organiser")
    return events if user.has_perm(ANY_EVENT) else events.filter(organiser=user)
