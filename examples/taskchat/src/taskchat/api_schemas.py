"""The HTTP API's request and response bodies (their JSON shapes are the contract)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from taskchat.chat_replies import ChatReply
from taskchat.conversations import PendingCall
from taskchat.views import TaskDetailed

__all__ = [
    "ChatRequest",
    "ChatResponse",
    "ConversationResponse",
    "ErrorBody",
    "PendingConfirmationOut",
    "TasksResponse",
    "ToolOut",
    "ToolResultOut",
    "ToolsResponse",
    "TranscriptEntry",
]

MAX_MESSAGE_CHARS = 4000


class ChatRequest(BaseModel):
    """A user message, or the answers to the pending confirmations (``message`` is then the
    optional reason for a denial)."""

    model_config = ConfigDict(extra="forbid")

    conversation_id: str | None = Field(
        default=None, pattern=r"^[0-9a-f]{32}$", description="null starts a new conversation"
    )
    message: str = Field(default="", max_length=MAX_MESSAGE_CHARS)
    confirmations: dict[str, Literal["approve", "deny"]] = Field(
        default_factory=dict, max_length=32, description="call_id -> approve | deny"
    )


class ToolResultOut(BaseModel):
    call_id: str
    name: str
    success: bool
    message: str
    declined: bool = Field(
        default=False, description="the user declined the call: it did not run (not a failure)"
    )


class PendingConfirmationOut(BaseModel):
    call_id: str
    name: str
    arguments: dict[str, Any]

    @classmethod
    def from_call(cls, call: PendingCall) -> PendingConfirmationOut:
        return cls(call_id=call.call_id, name=call.name, arguments=dict(call.arguments))


class ChatResponse(BaseModel):
    """The answer of ``POST /api/v1/chat``, and the data of the streaming endpoint's ``reply``."""

    conversation_id: str
    reply: str
    tool_results: list[ToolResultOut]
    pending_confirmations: list[PendingConfirmationOut]

    @classmethod
    def from_reply(cls, reply: ChatReply) -> ChatResponse:
        return cls(
            conversation_id=reply.conversation_id,
            reply=reply.reply,
            tool_results=[
                ToolResultOut(
                    call_id=o.call_id,
                    name=o.name,
                    success=o.success,
                    message=o.message,
                    declined=o.declined,
                )
                for o in reply.tool_results
            ],
            pending_confirmations=[
                PendingConfirmationOut.from_call(p) for p in reply.pending_confirmations
            ],
        )


class ToolOut(BaseModel):
    name: str
    description: str
    parameters: dict[str, Any] = Field(description="JSON Schema of the arguments")


class ToolsResponse(BaseModel):
    tools: list[ToolOut]


class TasksResponse(BaseModel):
    tasks: list[TaskDetailed]
    total: int


class TranscriptEntry(BaseModel):
    """One line of a conversation as a person reads it (``name``, ``success`` and ``declined``
    for a tool call's result)."""

    role: Literal["user", "assistant", "tool"]
    text: str
    name: str | None = None
    success: bool | None = None
    declined: bool | None = None


class ConversationResponse(BaseModel):
    conversation_id: str
    messages: list[TranscriptEntry]
    pending_confirmations: list[PendingConfirmationOut]


class ErrorDetail(BaseModel):
    code: str
    message: str


class ErrorBody(BaseModel):
    error: ErrorDetail
