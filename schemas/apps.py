from django.apps import AppConfig


class SchemasConfig(AppConfig):
    name = "schemas"
    verbose_name = "Agents and extraction schemas"
