from django.db import migrations

from tournaments.permissions import ROLE_PERMISSIONS, groups_sync


def add_groups(apps, schema_editor):
    groups_sync(apps=apps, using=schema_editor.connection.alias)


def remove_groups(apps, schema_editor):
    apps.get_model("auth", "Group").objects.using(schema_editor.connection.alias).filter(name__in=ROLE_PERMISSIONS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("tournaments", "0003_auditrecord"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("ratings", "0001_initial"),
    ]
    operations = [migrations.RunPython(add_groups, remove_groups)]
