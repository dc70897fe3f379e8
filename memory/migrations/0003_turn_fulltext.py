from django.db import migrations


class Migration(migrations.Migration):
    """A full-text index on the turn log for search's cold fallback (english configuration;
    agents with another search_language compute it on the fly, scoped to one user)."""

    dependencies = [
        ("memory", "0002_write_lane"),
    ]

    operations = [
        migrations.RunSQL(
            "CREATE INDEX turn_text_english ON memory_turn USING gin (to_tsvector('english', text));",
            reverse_sql="DROP INDEX turn_text_english;",
        ),
    ]
