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

from steps import call, emit, read_until


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
