from django.db import migrations

from tenants.rls import tenant_row_security


class Migration(migrations.Migration):
    dependencies = [("memory", "0005_gdpr_lifecycle"), ("tenants", "0003_row_level_security")]

    operations = [
        tenant_row_security(table)
        for table in (
            "memory_enduser", "memory_session", "memory_turn", "memory_hotdocument",
            "memory_entity", "memory_acu", "memory_erasure",
        )
    ]  # fmt: skip
