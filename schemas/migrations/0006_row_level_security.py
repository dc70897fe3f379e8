from django.db import migrations

from tenants.rls import tenant_row_security


class Migration(migrations.Migration):
    dependencies = [("schemas", "0005_search_settings"), ("tenants", "0003_row_level_security")]

    operations = [
        tenant_row_security("schemas_agent"),
        tenant_row_security("schemas_extractionschema"),
    ]
