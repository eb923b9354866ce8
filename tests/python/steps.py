"""What the scenario scripts share: a JSON line per step, a tool call, a read until the screen
shows what is expected. Imported by the scripts of this directory, run as `python3 SCRIPT`."""

import asyncio
import json


def emit(step, text, is_error=None):
    """Prints one step: {"step", "text"[, "isError"]}."""
    line = {"step": step, "text": text}
    if is_error is not None:
        line["isError"] = is_error
    print(json.dumps(line), flush=True)


def text_of(result):
    """The text blocks of a tool result, joined."""
    return "".join(block.text for block in result.content if block.type == "text")


async def call(client, tool, arguments):
    """Calls `tool`, emits its result as a step, returns its text."""
    result = await client.call_tool(tool, arguments)
    text = text_of(result)
    emit(tool, text, bool(result.is_error))
    return text


async def read_until(client, window, done, seconds=10):
    """read_window until `done(text)` holds, `seconds` at most, emitting the last read only.
    rat's hook records a prompt before bash prints it: wait_window may answer before the screen
    shows the prompt, so a test reading right after it reads again until it does."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        result = await client.call_tool("read_window", {"window": window})
        text = text_of(result)
        if result.is_error or done(text) or loop.time() > deadline:
            emit("read_window", text, bool(result.is_error))
            return text
        await asyncio.sleep(0.05)
