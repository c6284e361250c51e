from django.db import migrations, models

from ratings.services.publication import DIGESTED, entries_digest


def digest_existing(apps, schema_editor):
    """Publications made before digests: digested as they stand now, which protects them from now on only."""
    Publication = apps.get_model("ratings", "Publication")
    PublishedEntry = apps.get_model("ratings", "PublishedEntry")
    for publication in Publication.objects.filter(digest="").iterator():
        header = (publication.date, publication.edition, publication.rated, publication.ranked, publication.starters,
                  publication.complete)
        entries = PublishedEntry.objects.filter(publication_id=publication.pk).values_list(*DIGESTED).iterator(10_000)
        Publication.objects.filter(pk=publication.pk).update(digest=entries_digest(header, entries))


class Migration(migrations.Migration):

    dependencies = [
        ('ratings', '0021_accuracy_refresh_outbox'),
    ]

    operations = [
        migrations.AddField(
            model_name='publication',
            name='digest',
            field=models.CharField(
                blank=True, editable=False, max_length=64,
                help_text='SHA-256 of the publication and its entries as published (services.publication.publication_digest): '
                          'verify_ratings recomputes it.',
            ),
        ),
        migrations.RunPython(digest_existing, migrations.RunPython.noop),
    ]
