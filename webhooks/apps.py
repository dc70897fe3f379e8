from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        # Services send the delivery task by name; registered in every process so that Celery
        # can run it eagerly when told to (the tests).
        from webhooks import tasks  # noqa: F401
