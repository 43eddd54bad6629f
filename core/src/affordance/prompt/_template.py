"""``$name`` / ``${name}`` templates, compiled once so rendering is a join, not a regex pass.

The syntax is ``string.Template``'s: ``$name``, ``${name}`` and ``$$`` for a literal dollar.
Values are read as attributes of the params dataclass and formatted with ``str``.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

from affordance._frozen import frozen

__all__ = ["CompiledTemplate", "TemplateSyntaxError", "compile_template"]

_TOKEN = re.compile(
    r"\$(?:(?P<escaped>\$)|(?P<named>[_a-zA-Z][_a-zA-Z0-9]*)|\{(?P<braced>[_a-zA-Z][_a-zA-Z0-9]*)\}"
    r"|(?P<invalid>))"
)


class TemplateSyntaxError(ValueError):
    """A ``$`` that starts no placeholder; ``column`` is 1-based within its line."""

    def __init__(self, message: str, *, line: int, column: int) -> None:
        self.line = line
        self.column = column
        super().__init__(f"{message} at line {line}, column {column}")


@frozen
class CompiledTemplate:
    """Literal chunks interleaved with placeholder names: ``chunks[0] + v0 + chunks[1] + ...``."""

    source: str
    chunks: tuple[str, ...]
    names: tuple[str, ...]

    @property
    def placeholders(self) -> frozenset[str]:
        return frozenset(self.names)

    def substitute(self, params: Any) -> str:
        """Fill the placeholders from the attributes of ``params``."""
        names = self.names
        if not names:
            return self.chunks[0]
        chunks = self.chunks
        parts = [chunks[0]]
        for index, name in enumerate(names, 1):
            parts.append(str(getattr(params, name)))
            parts.append(chunks[index])
        return "".join(parts)


def compile_template(source: str, *, dedent: bool = True) -> CompiledTemplate:
    """Dedent and strip ``source`` (so triple-quoted templates read naturally), then compile it."""
    text = textwrap.dedent(source).strip() if dedent else source
    chunks: list[str] = []
    names: list[str] = []
    literal: list[str] = []
    position = 0
    for match in _TOKEN.finditer(text):
        literal.append(text[position : match.start()])
        position = match.end()
        if match.group("escaped") is not None:
            literal.append("$")
            continue
        name = match.group("named") or match.group("braced")
        if name is None:
            line = text.count("\n", 0, match.start()) + 1
            column = match.start() - (text.rfind("\n", 0, match.start()) + 1) + 1
            raise TemplateSyntaxError(
                "'$' must start a placeholder ($name or ${name}) or be doubled ($$)",
                line=line,
                column=column,
            )
        chunks.append("".join(literal))
        literal = []
        names.append(name)
    literal.append(text[position:])
    chunks.append("".join(literal))
    return CompiledTemplate(source=text, chunks=tuple(chunks), names=tuple(names))
