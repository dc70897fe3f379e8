from django.db import migrations

from tenants.rls import ROLE_SQL, tenant_row_security


class Migration(migrations.Migration):
    dependencies = [("tenants", "0002_lifecycle_policy")]

    operations = [
        ROLE_SQL,
        tenant_row_security("tenants_tenant", column="id"),
        tenant_row_security("tenants_membership"),
        tenant_row_security("tenants_apikey"),
        tenant_row_security("tenants_auditevent"),
    ]
