"""The spread index's scripts (``spread/*.lua``) as one script on the server: each one a
function of its keys and arguments, called by name (the first argument). A master then holds
all of them or none (it lost its scripts: restarted, or flushed), so the calls a pipeline
sends it fail together and are sent again in their order: no call runs ahead of one sent
before it (a batch's record ahead of the next batch's beginning, a take-back ahead of a
claim), which separate scripts, one loaded and another not, would allow."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from news_crawler.index.scripts import shared

NAMES = ("claim_table", "claim_sentences", "claim_short", "claim_table_and_sentences", "decided", "remove", "finish",
         "unfile")
_HERE = Path(__file__).with_name("spread")


def program() -> str:
    """The one script: ``lua/common.lua``, ``lua/ids.lua`` and ``lua/drops.lua``, then each
    script's text as a function, then the call."""
    parts = [shared("ids.lua", "drops.lua"), "local SCRIPTS = {}\n"]
    for name in NAMES:
        body = (_HERE / f"{name}.lua").read_text(encoding="utf-8")
        parts.append(f"SCRIPTS['{name}'] = function(KEYS, ARGV)\n{body}\nend\n")
    parts.append("local args = {}\nfor i = 2, #ARGV do args[i - 1] = ARGV[i] end\n"
                 "return SCRIPTS[ARGV[1]](KEYS, args)\n")
    return "".join(parts)


class Entry(NamedTuple):
    """One of the scripts: its name, and the registered program holding it."""

    name: str
    program: Any  # redis-py's Script

    @property
    def sha(self) -> str:
        return self.program.sha

    @property
    def script(self) -> str:
        return self.program.script

    def __call__(self, keys: list[str], args: list[Any]) -> Any:
        return self.program(keys=keys, args=[self.name, *args])


def entries(client: Any) -> dict[str, Entry]:
    """Every script by name, on ``client``."""
    registered = client.register_script(program())
    return {name: Entry(name, registered) for name in NAMES}
