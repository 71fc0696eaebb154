"""Proactive messages: queued as jobs in the caller's transaction, sent within Teams' limits
(`bot.teams.outbound.send_budget`), retried.

Start a thread in a channel, reply in a thread, update or delete a sent message, through the
conversation references roster sync stored. Teams' 429 (and 412, 502, 504) put the job back
after Retry-After.
"""

import logging
from datetime import timedelta
from typing import Any

from botbuilder.core import TurnContext
from botbuilder.schema import (
    Activity,
    ActivityTypes,
    ChannelAccount,
    ConversationParameters,
    ConversationReference,
    Mention,
)
from msrest.exceptions import ClientRequestError, HttpOperationError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from bot import outcomes
from bot.clock import Clock
from bot.db.uow import UnitOfWork, unit_of_work
from bot.errors import NotFound
from bot.jobs.kinds import JobKind, Payload
from bot.jobs.queue import ClaimedJob
from bot.jobs.retry_after import retry_after
from bot.jobs.worker import PermanentFailure, RetryLater, Worker
from bot.messaging import Sent
from bot.teams.outbound import conversation_references
from bot.teams.outbound.send_budget import SendBudget
from bot.teams.transport.adapter import BotRuntime

log = logging.getLogger(__name__)

ADAPTIVE_CARD = "application/vnd.microsoft.card.adaptive"
# Teams' answers that mean "later": throttled, precondition (busy thread), gateway trouble.
THROTTLED = {429, 412, 502, 504}
MAX_RETRY_AFTER = timedelta(hours=1)


class NewThread(Payload):
    channel_id: str  # the channel's Teams id
    activity: dict[str, Any]


class Reply(Payload):
    conversation_id: str  # a thread (`<channel>;messageid=<root>`) or a chat
    activity: dict[str, Any]


class Update(Payload):
    conversation_id: str
    activity_id: str  # the message the bot sent, replaced
    activity: dict[str, Any]


NEW_THREAD = JobKind("teams.new_thread", NewThread)
REPLY = JobKind("teams.reply", Reply)
UPDATE = JobKind("teams.update", Update)


def message(*, card: dict[str, Any] | None = None, text: str | None = None) -> dict[str, Any]:
    """A message activity with an Adaptive Card, a text, or both."""
    if card is None and not text:
        raise ValueError("a message needs a card or a text")
    body: dict[str, Any] = {"type": ActivityTypes.message}
    if text:
        body["text"] = text
    if card is not None:
        body["attachments"] = [{"contentType": ADAPTIVE_CARD, "content": card}]
    return body


async def queue_new_thread(uow: UnitOfWork, *, channel_id: str, activity: dict[str, Any]) -> str:
    """Start a thread in the channel (its Teams thread id) once the caller's transaction commits."""
    return await NEW_THREAD.enqueue(uow, NewThread(channel_id=channel_id, activity=activity))


async def queue_reply(uow: UnitOfWork, *, conversation_id: str, activity: dict[str, Any]) -> str:
    """Post in a conversation: a thread (`<channel>;messageid=<root>`) or a chat."""
    return await REPLY.enqueue(uow, Reply(conversation_id=conversation_id, activity=activity))


async def queue_update(
    uow: UnitOfWork, *, conversation_id: str, activity_id: str, activity: dict[str, Any]
) -> str:
    """Replace a message the bot sent (a card's new state)."""
    payload = Update(conversation_id=conversation_id, activity_id=activity_id, activity=activity)
    return await UPDATE.enqueue(uow, payload)


def _tenant(reference: ConversationReference) -> str | None:
    return reference.conversation.tenant_id if reference.conversation else None


class Notifier:
    """Sends through the Bot Connector; each call is one paced request."""

    def __init__(
        self,
        runtime: BotRuntime,
        sessions: async_sessionmaker[AsyncSession],
        clock: Clock,
        *,
        budget: SendBudget | None = None,
    ) -> None:
        self._runtime, self._sessions, self._clock = runtime, sessions, clock
        self.budget = budget or SendBudget(sessions)

    def register(self, worker: Worker) -> None:
        worker.register(NEW_THREAD, self._run_new_thread)
        worker.register(REPLY, self._run_reply)
        worker.register(UPDATE, self._run_update)

    async def start_thread(self, *, channel_id: str, activity: dict[str, Any]) -> Sent:
        reference = await self._reference(channel_id)
        outgoing = self._activity(activity, reference)
        parameters = ConversationParameters(
            is_group=True,
            bot=ChannelAccount(id=reference.bot.id if reference.bot else None),
            channel_data={"channel": {"id": channel_id}},
            tenant_id=_tenant(reference),
            activity=outgoing,
        )
        await self.budget.wait_turn(channel_id, tenant=_tenant(reference))
        client = await self._runtime.connector(reference.service_url)
        result = await self._call(client.conversations.create_conversation(parameters))
        return Sent(result.id, result.activity_id)

    async def reply(self, *, conversation_id: str, activity: dict[str, Any]) -> Sent:
        reference = await self._reference(conversation_id)
        outgoing = self._activity(activity, reference)
        await self.budget.wait_turn(conversation_id, tenant=_tenant(reference))
        client = await self._runtime.connector(reference.service_url)
        _, _, root = conversation_id.partition(";messageid=")
        if root:
            sent = client.conversations.reply_to_activity(conversation_id, root, outgoing)
        else:
            sent = client.conversations.send_to_conversation(conversation_id, outgoing)
        personal = reference.conversation and reference.conversation.conversation_type == "personal"
        result = await self._call(
            sent, to=f" to the 1:1 chat {conversation_id}" if personal else ""
        )
        return Sent(conversation_id, result.id if result else None)

    async def update(
        self, *, conversation_id: str, activity_id: str, activity: dict[str, Any]
    ) -> Sent:
        reference = await self._reference(conversation_id)
        outgoing = self._activity(activity, reference)
        outgoing.id = activity_id
        await self.budget.wait_turn(conversation_id, tenant=_tenant(reference))
        client = await self._runtime.connector(reference.service_url)
        await self._call(
            client.conversations.update_activity(conversation_id, activity_id, outgoing)
        )
        return Sent(conversation_id, activity_id)

    async def remove(self, *, conversation_id: str, activity_id: str) -> None:
        reference = await self._reference(conversation_id)
        await self.budget.wait_turn(conversation_id, tenant=_tenant(reference))
        client = await self._runtime.connector(reference.service_url)
        await self._call(client.conversations.delete_activity(conversation_id, activity_id))

    async def _run_new_thread(self, job: ClaimedJob[NewThread]) -> None:
        await self.start_thread(channel_id=job.payload.channel_id, activity=job.payload.activity)

    async def _run_reply(self, job: ClaimedJob[Reply]) -> None:
        await self.reply(conversation_id=job.payload.conversation_id, activity=job.payload.activity)

    async def _run_update(self, job: ClaimedJob[Update]) -> None:
        payload = job.payload
        await self.update(
            conversation_id=payload.conversation_id,
            activity_id=payload.activity_id,
            activity=payload.activity,
        )

    async def _reference(self, conversation_id: str) -> ConversationReference:
        async with unit_of_work(self._sessions, self._clock, write=False) as uow:
            try:
                stored = await conversation_references.load(uow, conversation_id=conversation_id)
            except NotFound as exc:
                raise PermanentFailure(exc.message) from exc
            reference = ConversationReference().deserialize(stored)
            if reference.conversation is not None and not reference.conversation.tenant_id:
                # Teams spells it `tenantId`, which the SDK's model does not read (`tenantID`).
                reference.conversation.tenant_id = await conversation_references.tenant_of(
                    uow, conversation_id=conversation_id
                )
        return reference

    @staticmethod
    def _activity(body: dict[str, Any], reference: ConversationReference) -> Activity:
        activity = Activity().deserialize(body)
        # msrest keeps only an entity's `type`: a mention keeps whom it names and its text.
        activity.entities = [
            Mention().deserialize(given) if given.get("type") == "mention" else kept
            for given, kept in zip(body.get("entities") or (), activity.entities or (), strict=True)
        ] or activity.entities
        return TurnContext.apply_conversation_reference(activity, reference)

    async def _call(self, request: Any, *, to: str = "") -> Any:
        """Await a connector call; Teams' refusals become the job's retry or failure (`to`:
        where the message was going, said in the failure)."""
        try:
            result = await request
        except HttpOperationError as exc:
            status = getattr(exc.response, "status_code", None)
            headers = getattr(exc.response, "headers", None) or {}
            if status in THROTTLED:
                outcomes.bot_send("throttled")
                raise RetryLater(
                    f"Teams answered {status}",
                    after=retry_after(
                        headers.get("Retry-After"), now=self._clock.now(), cap=MAX_RETRY_AFTER
                    ),
                ) from exc
            if status is not None and 400 <= status < 500:
                outcomes.bot_send("refused")
                raise PermanentFailure(f"Teams refused the message{to}: {status}") from exc
            outcomes.bot_send("error")
            raise
        except ClientRequestError as exc:
            outcomes.bot_send("unreachable")
            raise RetryLater(f"Bot Connector unreachable: {exc}") from exc
        outcomes.bot_send("sent")
        return result
