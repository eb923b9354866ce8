"""The official Python MCP SDK starting rat while ratd is not there: what the harness shows.

    python3 unreachable.py RAT SERVER CLIENT_DIR

Starts rat as a stdio server (it starts without contacting ratd), then connects with the
initialize handshake; rat answers it with its own JSON-RPC error (-32050) telling what failed.
Prints {"step": "initialize", "isError": true, "text": "CODE MESSAGE"}.
"""

import asyncio
import json
import sys

from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError


async def main(rat, server, client_dir):
    params = StdioServerParameters(command=rat, args=["--server", server, "--bundle", client_dir])
    try:
        async with Client(params, mode="legacy"):
            print(json.dumps({"step": "initialize", "isError": False, "text": "connected"}))
    except* MCPError as group:
        # anyio's task groups wrap it.
        error = group.exceptions[0]
        while isinstance(error, BaseExceptionGroup):
            error = error.exceptions[0]
        text = f"{error.error.code} {error.error.message}"
        print(json.dumps({"step": "initialize", "isError": True, "text": text}))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
