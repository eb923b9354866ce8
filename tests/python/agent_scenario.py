"""The official Python MCP SDK (`mcp` on PyPI) driving rat as a stdio server, as an agent would.

    python3 agent_scenario.py RAT SERVER CLIENT_DIR SCRATCH_DIR

Starts `RAT --server SERVER --bundle CLIENT_DIR` as a stdio MCP server (the SDK's stdio
transport; protocol negotiated with server/discover, mode="auto"), then: list_windows (a fresh
main), create_window build, wait for its prompt, send a pipeline whose first command fails, wait
for it (statuses 1 0 told), read the window, read the file the command wrote, write a file and
read a range of it, start `sleep 100`, see it running, interrupt it with C-c, wait (status 130),
close the window, list the windows again. Prints one JSON line per call:
{"step": TOOL, "isError": BOOL, "text": TEXT}, then {"step": "protocol", "text": VERSION}.
"""

import asyncio
import sys

from mcp import Client, StdioServerParameters

from steps import call, emit, read_until


async def main(rat, server, client_dir, scratch):
    params = StdioServerParameters(command=rat, args=["--server", server, "--bundle", client_dir])
    pipeline_output = f"{scratch}/x"
    notes = f"{scratch}/notes/today.txt"
    async with Client(params, mode="auto") as client:
        emit("protocol", client.protocol_version)
        await call(client, "list_windows", {})
        await call(client, "create_window", {"name": "build"})
        await call(client, "wait_window", {"window": "build", "max_seconds": 20})
        await call(
            client,
            "send_text",
            {"window": "build", "text": f"printf 'a\\nb\\n' > {pipeline_output} && false | true", "enter": True},
        )
        await call(client, "wait_window", {"window": "build", "max_seconds": 20})
        # Until the last line is the prompt (e2e$, trimmed), after the command line.
        await read_until(client, "build", lambda text: text.endswith("\ne2e$"))
        await call(client, "read_file", {"path": pipeline_output})
        await call(client, "write_file", {"path": notes, "content": "one\ntwo\nthree\nfour\n"})
        await call(client, "read_file", {"path": notes, "start_line": 2, "max_lines": 2})
        await call(client, "send_text", {"window": "build", "text": "sleep 100", "enter": True})
        # Long enough for sleep to be in the foreground on a loaded machine.
        await call(client, "wait_window", {"window": "build", "max_seconds": 5})
        await call(client, "send_keys", {"window": "build", "keys": ["C-c"]})
        await call(client, "wait_window", {"window": "build", "max_seconds": 20})
        await call(client, "close_window", {"name": "build"})
        await call(client, "list_windows", {})


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:5]))
