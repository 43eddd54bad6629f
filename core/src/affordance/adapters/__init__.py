"""What provider plugins build on: the adapter base class and the normalized turn model."""

from affordance.adapters.base import ProviderAdapter
from affordance.runtime.messages import (
    AssistantMessage,
    Message,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from affordance.runtime.turn import ModelRequest, ProviderTurn, Usage

__all__ = [
    "AssistantMessage",
    "Message",
    "ModelRequest",
    "ProviderAdapter",
    "ProviderTurn",
    "ToolCall",
    "ToolResultMessage",
    "Usage",
    "UserMessage",
]
