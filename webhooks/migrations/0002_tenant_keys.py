"""The webhook tables keyed by tenant like every tenant table (ADR 0028): primary keys
(id, tenant_id), and the foreign keys between them (x_id, tenant_id) → (id, tenant_id).
Django's single-column constraints go first (``db_constraint=False``); the rows stay."""

import django.db.models.deletion
from django.db import migrations, models

from tenants.distribution import tenant_keys


class Migration(migrations.Migration):
    dependencies = [
        ("webhooks", "0001_initial"),
    ]

    operations = [
        migrations.AlterField(
            model_name="webhookdelivery",
            name="endpoint",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="deliveries",
                to="webhooks.webhookendpoint",
            ),
        ),
        migrations.AlterField(
            model_name="webhookdelivery",
            name="event",
            field=models.ForeignKey(
                db_constraint=False,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="deliveries",
                to="webhooks.webhookevent",
            ),
        ),
        migrations.AlterField(
            model_name="webhookdelivery",
            name="replay_of",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="webhooks.webhookdelivery",
            ),
        ),
        tenant_keys(
            [
                "webhooks_webhookendpoint",
                "webhooks_webhookevent",
                "webhooks_webhookdelivery",
            ]
        ),
    ]
