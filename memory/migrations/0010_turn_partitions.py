from django.db import migrations

from tenants.distribution import turn_partitioning


class Migration(migrations.Migration):
    """The turn log hash-partitioned by tenant_id (ADR 0028), rows copied over."""

    dependencies = [("memory", "0009_tenant_keys")]

    operations = [turn_partitioning()]
