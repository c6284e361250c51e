from django.db import migrations

BATCH = 2000


def refold_search_names(apps, schema_editor):
    """Every coach's search key made again: the key now folds ue, oe, ae and aa (issue 30)."""
    # the model's own key, not a copy: a database migrated from scratch holds the keys the code makes
    from tournaments.models import SEARCH_NAME_LENGTH, search_key

    Coach = apps.get_model("tournaments", "Coach")
    batch = []
    for coach in Coach.objects.only("pk", "name", "search_name").order_by("pk").iterator(chunk_size=BATCH):
        key = search_key(coach.name)[:SEARCH_NAME_LENGTH]
        if key != coach.search_name:  # most names hold none of them: only the others are written
            coach.search_name = key
            batch.append(coach)
        if len(batch) == BATCH:
            Coach.objects.bulk_update(batch, ["search_name"])
            batch = []
    Coach.objects.bulk_update(batch, ["search_name"])


class Migration(migrations.Migration):

    dependencies = [
        ('tournaments', '0013_game_reported_index'),
    ]

    operations = [
        migrations.RunPython(refold_search_names, migrations.RunPython.noop, elidable=True),
    ]
