"""The official Python MCP SDK starting the server of a harness configuration, as a harness does.

    python3 from_config.py CONFIG.json

Reads {"mcpServers": {NAME: {"command", "args"}}} (as `rat-tool config` prints it), starts the
one server with exactly that command and those arguments over stdio, then lists the windows and
runs a command in main. Prints one JSON line per step: {"step", "isError", "text"}.
"""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters


def emit(step, text, is_error=None):
    line = {"step": step, "text": text}
    if is_error is not None:
        line["isError"] = is_error
    print(json.dumps(line), flush=True)


async def call(client, tool, arguments):
    result = await client.call_tool(tool, arguments)
    text = "".join(block.text for block in result.content if block.type == "text")
    emit(tool, text, bool(result.is_error))


async def read_until(client, window, done, seconds=10):
    """read_window until `done(text)` holds, `seconds` at most, emitting the last read only.
    rat's hook records a prompt before bash prints it: wait_window may answer before the screen
    shows the prompt, so a test reading right after it reads again until it does."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        result = await client.call_tool("read_window", {"window": window})
        text = "".join(block.text for block in result.content if block.type == "text")
        if result.is_error or done(text) or loop.time() > deadline:
            emit("read_window", text, bool(result.is_error))
            return text
        await asyncio.sleep(0.05)


async def main(path):
    with open(path) as f:
        servers = json.load(f)["mcpServers"]
    (name, server), = servers.items()
    emit("server", name)
    params = StdioServerParameters(command=server["command"], args=server["args"])
    async with Client(params) as client:
        await call(client, "list_windows", {})
        await call(client, "wait_window", {"window": "main", "max_seconds": 20})
        await call(client, "send_text", {"window": "main", "text": "echo configured", "enter": True})
        await call(client, "wait_window", {"window": "main", "max_seconds": 20})
        await read_until(client, "main", lambda text: "\nconfigured\n" in text)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
