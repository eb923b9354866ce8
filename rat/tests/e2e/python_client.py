"""A harness as harnesses are written: the official Python MCP SDK (`mcp` on PyPI, 2.3.0)
starting `rat` as a stdio server and calling every tool of ratd through it.

    python3 python_client.py RAT SERVER CLIENT_DIR MODE

MODE is the SDK's `mode=`: `legacy` (initialize, the newest handshake version) or `auto`
(server/discover, protocol 2026-07-28). Prints one JSON object on stdout: what the test checks.
"""

import asyncio
import json
import sys

from mcp import Client
from mcp.client.stdio import StdioServerParameters


def text_of(result):
    return "".join(getattr(block, "text", "") for block in result.content)


async def main(rat, server, client_dir, mode):
    params = StdioServerParameters(command=rat, args=["--server", server, "--bundle", client_dir, "--log-level", "debug"])
    out = {}
    async with Client(params, mode=mode, read_timeout_seconds=60) as client:
        out["protocol_version"] = client.protocol_version
        out["server_title"] = getattr(client.server_info, "title", None) if client.server_info else None
        tools = await client.list_tools()
        out["tools"] = sorted(tool.name for tool in tools.tools)

        async def call(name, arguments):
            result = await client.call_tool(name, arguments)
            return {"is_error": bool(result.is_error), "text": text_of(result)}

        calls = {}
        calls["list_windows"] = await call("list_windows", {})
        calls["create_window"] = await call("create_window", {"name": "build"})
        await call("wait_window", {"window": "build", "max_seconds": 10})
        calls["send_text"] = await call("send_text", {"window": "build", "text": "echo rat-e2e-$((6*7)) é", "enter": True})
        calls["wait_window"] = await call("wait_window", {"window": "build", "max_seconds": 10})
        calls["read_window"] = await call("read_window", {"window": "build"})
        calls["send_keys"] = await call("send_keys", {"window": "build", "keys": ["C-c"]})
        calls["write_file"] = await call("write_file", {"path": "/tmp/rat-e2e-" + mode + ".txt", "content": "one\ntwo é\n"})
        calls["read_file"] = await call("read_file", {"path": "/tmp/rat-e2e-" + mode + ".txt"})
        calls["close_window"] = await call("close_window", {"name": "build"})
        calls["unknown_window"] = await call("read_window", {"window": "nowhere"})
        out["calls"] = calls
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
