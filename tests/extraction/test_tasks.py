"""The run task retries what may pass with backoff (core.tasks.RetryingTask) and records the run
as failed when the last retry fails too; what retrying cannot fix is recorded at once."""

from __future__ import annotations

import pytest
from celery.exceptions import Retry

from extraction import pipeline
from extraction.extractors import ExtractionFailed
from extraction.models import ExtractionRun, RunStatus
from extraction.tasks import extraction_run
from memory.models import EndUser
from schemas.models import Agent

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(property_agent: Agent) -> ExtractionRun:
    user = EndUser.objects.create(tenant_id=property_agent.tenant_id, external_id="priya")
    return ExtractionRun.objects.create(
        tenant_id=property_agent.tenant_id, agent=property_agent, end_user=user
    )


@pytest.fixture
def model_down(monkeypatch: pytest.MonkeyPatch) -> None:
    def down(run: ExtractionRun) -> ExtractionRun:
        raise TimeoutError("model endpoint timed out")

    monkeypatch.setattr(pipeline, "execute", down)


@pytest.mark.parametrize(("retries", "countdown"), [(0, 5), (1, 10), (4, 80)])
def test_a_failure_with_retries_left_is_retried_with_backoff_and_the_run_waits(
    run: ExtractionRun, model_down: None, retries: int, countdown: int
) -> None:
    with pytest.raises(Retry) as retry:  # eager mode propagates the retry it would schedule
        extraction_run.apply(args=(run.pk,), retries=retries)
    assert retry.value.when == countdown
    run.refresh_from_db()
    assert (run.status, run.error) == (RunStatus.PENDING, "TimeoutError: model endpoint timed out")


def test_the_last_retry_failing_records_the_run_as_failed(
    run: ExtractionRun, model_down: None
) -> None:
    assert extraction_run.max_retries == 5
    with pytest.raises(TimeoutError):
        extraction_run.apply(args=(run.pk,), retries=5)
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED and run.finished_at is not None
    assert run.error == "gave up after 5 retries: model endpoint timed out"


def test_the_run_is_recorded_when_given_by_keyword_too(
    run: ExtractionRun, model_down: None
) -> None:
    with pytest.raises(TimeoutError):
        extraction_run.apply(kwargs={"run_id": run.pk}, retries=5)
    assert ExtractionRun.objects.get(pk=run.pk).status == RunStatus.FAILED


def test_a_failure_retrying_cannot_fix_is_recorded_once_and_not_retried(
    run: ExtractionRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    def malformed(run: ExtractionRun) -> ExtractionRun:
        raise ExtractionFailed("the model answered with invalid JSON")

    monkeypatch.setattr(pipeline, "execute", malformed)
    result = extraction_run.apply(args=(run.pk,))
    assert result.successful()
    run.refresh_from_db()
    assert (run.status, run.error) == (RunStatus.FAILED, "the model answered with invalid JSON")


def test_a_direct_call_outside_celery_raises_and_records_nothing(
    run: ExtractionRun, model_down: None
) -> None:
    with pytest.raises(TimeoutError):
        extraction_run(run.pk)
    assert ExtractionRun.objects.get(pk=run.pk).status == RunStatus.PENDING


def test_a_bug_fails_the_run_once_with_the_reason_instead_of_retrying(
    run: ExtractionRun, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 16: a stored value that broke the pipeline kept the run pending for good."""

    def broken(run: ExtractionRun) -> ExtractionRun:
        raise AttributeError("'int' object has no attribute 'get'")

    monkeypatch.setattr(pipeline, "execute", broken)
    with pytest.raises(AttributeError):
        extraction_run.apply(args=(run.pk,))  # no Retry: the first failure is the last
    run.refresh_from_db()
    assert run.status == RunStatus.FAILED
    assert run.error == "failed: AttributeError: 'int' object has no attribute 'get'"
