from __future__ import annotations

from celery import shared_task

from extraction.services import EXTRACTION_TASK, extraction_run_execute


@shared_task(name=EXTRACTION_TASK, acks_late=True)
def extraction_run(run_id: int) -> None:
    extraction_run_execute(run_id=run_id)
