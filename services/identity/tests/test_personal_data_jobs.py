"""Personal data erasure jobs against a real database: the job and its request event commit
together, reports are recorded once, and services that did not report are asked again."""

from __future__ import annotations

from redline.envelope.auth import ApiKeyPrincipal
from redline.identity.personal_data import models
from redline.identity.personal_data.jobs import ErasureJobs
from redline.pg import Pool
from redline.proto.events import PersonalDataErased, PersonalDataErasureRequested, decode_event

KEY = ApiKeyPrincipal(workspace_id="ws-1", api_key="key-1")


async def requests(pool: Pool) -> list[PersonalDataErasureRequested]:
    rows = await pool.fetch("SELECT payload FROM identity.outbox ORDER BY seq")
    events = [decode_event(r["payload"]) for r in rows]
    return [e for e in events if isinstance(e, PersonalDataErasureRequested)]


def report(job_id: str, service: str, erased: int = 1) -> PersonalDataErased:
    return PersonalDataErased(
        workspaceId=KEY.workspace_id,
        service=service,
        jobId=job_id,
        apiKey=KEY.api_key,
        erasedRecords=erased,
    )


async def state(jobs: ErasureJobs, job_id: str) -> models.ErasureState:
    return await jobs.status(KEY, models.ErasureStatusRequest(jobId=job_id))


async def test_a_job_is_requested_then_completes_as_every_service_reports(pool: Pool) -> None:
    jobs = ErasureJobs(pool, ["identity", "comments"])
    started = await jobs.start(
        KEY, models.DeleteUserData(userIds=["erin", "erin", "sam"], organizationIds=["acme"])
    )
    assert started.tasksCount == 2
    [requested] = await requests(pool)
    assert (requested.jobId, requested.userIds) == (started.jobId, ["erin", "sam"])
    assert (requested.organizationIds, requested.participants) == (
        ["acme"],
        ["identity", "comments"],
    )
    assert (await state(jobs, started.jobId)).status == "pending"

    await jobs.on_report(report(started.jobId, "comments"))
    await jobs.on_report(report(started.jobId, "comments"))  # redelivered
    await jobs.on_report(report(started.jobId, "stranger"))  # not a participant
    halfway = await state(jobs, started.jobId)
    assert (halfway.status, halfway.tasksLeft) == ("in_progress", 1)
    assert halfway.lastTaskCompletedTime is not None

    await jobs.on_report(report(started.jobId, "identity"))
    done = await state(jobs, started.jobId)
    assert (done.status, done.tasksLeft, done.isDeleteCompleted) == ("completed", 0, True)


async def test_services_that_did_not_report_are_asked_again(pool: Pool) -> None:
    jobs = ErasureJobs(pool, ["identity", "comments", "memory"])
    open_job = await jobs.start(KEY, models.DeleteUserData(userIds=["erin"]))
    finished = await jobs.start(KEY, models.DeleteUserData(userIds=["sam"]))
    await jobs.on_report(report(open_job.jobId, "identity"))
    for service in ("identity", "comments", "memory"):
        await jobs.on_report(report(finished.jobId, service))

    # Not overdue yet: nothing is sent.
    assert await jobs.ask_again(older_than_s=3600) == 0
    assert await jobs.ask_again(older_than_s=0) == 1
    again = (await requests(pool))[-1]
    assert (again.jobId, again.participants) == (open_job.jobId, ["comments", "memory"])
    assert again.userIds == ["erin"]
    assert again.organizationIds is None
