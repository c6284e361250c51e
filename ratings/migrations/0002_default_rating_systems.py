from django.db import migrations

from ratings.defaults import DEFAULT_SYSTEMS


def add_systems(apps, schema_editor):
    RatingSystem = apps.get_model("ratings", "RatingSystem")
    Race = apps.get_model("tournaments", "Race")
    for spec in DEFAULT_SYSTEMS:
        fields = {k: v for k, v in spec.items() if k not in {"slug", "excluded_races"}}
        system, _ = RatingSystem.objects.update_or_create(slug=spec["slug"], defaults=fields)
        system.excluded_races.set(Race.objects.filter(slug__in=spec["excluded_races"]))


def remove_systems(apps, schema_editor):
    apps.get_model("ratings", "RatingSystem").objects.filter(slug__in=[s["slug"] for s in DEFAULT_SYSTEMS]).delete()


class Migration(migrations.Migration):
    dependencies = [("ratings", "0001_initial"), ("tournaments", "0002_ranked_races_and_variants")]
    operations = [migrations.RunPython(add_systems, remove_systems)]
