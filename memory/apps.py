from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"

    def ready(self) -> None:
        # Services send tasks by name; registering them in every process (not only workers)
        # lets Celery run them eagerly when it is set to, as the tests do.
        from memory import tasks  # noqa: F401
