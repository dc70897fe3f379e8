from django.db import migrations, models


class Migration(migrations.Migration):
    """The UTC offset a turn's time was given with, so the write lane reads relative dates on
    the user's own day. Nullable, no default: adding it rewrites no row of the turn log (and on
    the partitioned table PostgreSQL adds it to every partition)."""

    dependencies = [("memory", "0010_turn_partitions")]

    operations = [
        migrations.AddField(
            model_name="turn",
            name="utc_offset",
            field=models.SmallIntegerField(blank=True, null=True),
        ),
    ]
