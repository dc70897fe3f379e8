from django.apps import AppConfig


class ExtractionConfig(AppConfig):
    name = "extraction"

    def ready(self) -> None:
        from extraction.export import register

        register()
        # Registers the tasks by name in every process, not only in workers (which find them
        # by autodiscovery): extraction.queue sends them by name, and eager mode runs them.
        import extraction.tasks  # noqa: F401
