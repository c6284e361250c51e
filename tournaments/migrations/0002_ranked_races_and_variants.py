from django.db import migrations
from django.utils.text import slugify

from tournaments.federation import RANKED_RACES, STUNTY_RACES, VARIANTS


def add_races_and_variants(apps, schema_editor):
    Race = apps.get_model("tournaments", "Race")
    Variant = apps.get_model("tournaments", "Variant")
    for name in RANKED_RACES:
        Race.objects.update_or_create(
            name=name, defaults={"slug": slugify(name), "ranked": True, "stunty": name in STUNTY_RACES}
        )
    for name in VARIANTS:
        Variant.objects.get_or_create(name=name, defaults={"slug": slugify(name)})


def remove_races_and_variants(apps, schema_editor):
    apps.get_model("tournaments", "Race").objects.filter(name__in=RANKED_RACES).delete()
    apps.get_model("tournaments", "Variant").objects.filter(name__in=VARIANTS).delete()


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0001_initial")]
    operations = [migrations.RunPython(add_races_and_variants, remove_races_and_variants)]
