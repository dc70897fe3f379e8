from django.db import migrations

from tenants.rls import tenant_row_security


class Migration(migrations.Migration):
    dependencies = [("extraction", "0001_initial"), ("tenants", "0003_row_level_security")]

    operations = [tenant_row_security("extraction_extractionrun")]
