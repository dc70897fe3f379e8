"""Hot-document key names become a keyed hash with a Redis Cluster hash tag (issue 16, 18): the
stored names are recomputed; the copies under the old names expire with their TTL (or are
evicted here when Redis is reachable)."""

from __future__ import annotations

from typing import Any

from django.db import migrations


def rekey(apps: Any, schema_editor: Any) -> None:
    from memory.services.hot_keys import hot_cache_keys_rekey

    hot_cache_keys_rekey(apps.get_model("memory", "HotDocument"))


class Migration(migrations.Migration):
    dependencies = [("memory", "0007_hotdocument_stable_version")]

    operations = [migrations.RunPython(rekey, migrations.RunPython.noop)]
