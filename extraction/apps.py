from django.apps import AppConfig


class ExtractionConfig(AppConfig):
    name = "extraction"

    def ready(self) -> None:
        from extraction.export import register

        register()
