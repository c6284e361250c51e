# Indexes of the public pages: the rankings' and lists' default order, list changes (risers, starters), and a
# coach's period and uncounted rows for the breakdown.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('ratings', '0003_beat_schedule'),
    ]

    operations = [
        migrations.AddIndex(
            model_name='calculationrow',
            index=models.Index(fields=['system', 'coach', 'period'], name='calc_row_period_idx'),
        ),
        migrations.AddIndex(
            model_name='calculationrow',
            index=models.Index(condition=models.Q(('counted', False)), fields=['system', 'coach'], name='calc_row_uncounted_idx'),
        ),
        migrations.AddIndex(
            model_name='currentrating',
            index=models.Index(fields=['system', 'overall_rank', '-value', 'coach'], name='current_ranking_idx'),
        ),
        migrations.AddIndex(
            model_name='currentrating',
            index=models.Index(fields=['system', 'variant', 'overall_rank', '-value', 'coach'], name='current_variant_ranking_idx'),
        ),
        migrations.AddIndex(
            model_name='ratinglistentry',
            index=models.Index(fields=['rating_list', 'overall_rank', '-value', 'coach'], name='entry_list_ranking_idx'),
        ),
        migrations.AddIndex(
            model_name='ratinglistentry',
            index=models.Index(fields=['rating_list', 'change'], name='entry_list_change_idx'),
        ),
    ]
