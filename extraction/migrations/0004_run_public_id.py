"""Runs get an opaque public id (issue 16): added nullable, filled row by row (a default would
give every existing row the same UUID), then made unique and required."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.postgres.functions import RandomUUID
from django.db import migrations, models


def fill(apps: Any, schema_editor: Any) -> None:
    run = apps.get_model("extraction", "ExtractionRun")
    for pk in run.objects.filter(public_id__isnull=True).values_list("pk", flat=True).iterator():
        run.objects.filter(pk=pk).update(public_id=uuid.uuid4())


class Migration(migrations.Migration):
    dependencies = [("extraction", "0003_extraction_budget")]

    operations = [
        migrations.AddField(
            model_name="extractionrun", name="public_id", field=models.UUIDField(null=True)
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="extractionrun",
            name="public_id",
            field=models.UUIDField(
                db_default=RandomUUID(), default=uuid.uuid4, editable=False, unique=True
            ),
        ),
    ]
