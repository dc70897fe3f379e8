"""Signed webhooks (ADR 0031): a tenant's endpoints, the outbox of events written in the same
transaction as the change, and the delivery log. Sits just above ``tenants``: ``memory`` and
``extraction`` emit events here; nothing here imports them."""
