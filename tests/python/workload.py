"""An agent's typical work, scripted through the official Python MCP SDK (`mcp` on PyPI)
driving rat as a stdio server, in one of two ways:

    python3 workload.py RAT SERVER CLIENT_DIR PROJECT_DIR (three|one)

`three`: each command the way an agent without waiting sends takes it, send_text, wait_window
(how it exited), read_window (what it printed). `one`: send_text with wait_seconds, whose answer
tells both. A long build runs in a second window meanwhile: started, left, and waited for later
(in both ways). Prints one JSON line per step: {"step": N, "what": TEXT, "calls": N, "bytes": N,
"texts": [TEXT...]}, bytes being the UTF-8 bytes of the texts the calls answered.
"""

import asyncio
import json
import os
import sys

from mcp import Client, StdioServerParameters

from steps import text_of

BROKEN = "def area(w, h):\n    return w * h\n\ndef perimeter(w, h)\n    return 2 * (w + h)\n"
FIXED = "def area(w, h):\n    return w * h\n\n\ndef perimeter(w, h):\n    return 2 * (w + h)\n"
MORE = FIXED + "\n\ndef square(s):\n    return area(s, s)\n"
TESTS = (
    "import unittest\n\nfrom app import area, perimeter\n\n\n"
    "class Shapes(unittest.TestCase):\n"
    "    def test_area(self):\n        self.assertEqual(area(2, 3), 6)\n\n"
    "    def test_perimeter(self):\n        self.assertEqual(perimeter(2, 3), 10)\n"
)
COMMIT = "git init -q && git add -A && git -c user.name=agent -c user.email=agent@example.com commit -qm first && git status --short"
LONG = "for part in 1 2 3 4 5 6; do echo compiling part $part; sleep 1; done; echo built"

# (what, kind, arguments): kind `tool` is one call as it is, `command` a command in main, `start`
# a long command started in a window and left, `finish` waiting for it.
STEPS = [
    ("list the windows", "tool", ("list_windows", {})),
    ("write the program, with an error", "write", ("app.py", BROKEN)),
    ("build: an error", "command", "python3 -m py_compile app.py"),
    ("read the program", "tool", ("read_file", {"path": "app.py"}, True)),
    ("fix the error", "write", ("app.py", FIXED)),
    ("build again", "command", "python3 -m py_compile app.py && echo compiled"),
    ("write the tests", "write", ("test_app.py", TESTS)),
    ("run the tests", "command", "python3 -m unittest test_app"),
    ("commit, git status", "command", COMMIT),
    ("ls", "command", "ls"),
    ("cat a file", "command", "cat app.py"),
    ("a second window for a long build", "tool", ("create_window", {"name": "build"})),
    ("start the long build there", "start", LONG),
    ("grep, meanwhile", "command", "grep -n def app.py"),
    ("add a function", "write", ("app.py", MORE)),
    ("run the tests again", "command", "python3 -m unittest test_app"),
    ("git status", "command", "git status --short"),
    ("git diff --stat", "command", "git diff --stat"),
    ("the long build's end", "finish", "build"),
    ("close the second window", "tool", ("close_window", {"name": "build"})),
]

WAIT = 30


async def main(rat, server, client_dir, project, way):
    params = StdioServerParameters(command=rat, args=["--server", server, "--bundle", client_dir])
    async with Client(params, mode="auto") as client:
        texts = []

        async def call(tool, arguments):
            result = await client.call_tool(tool, arguments)
            text = text_of(result)
            texts.append(text)
            if result.is_error:
                raise SystemExit(f"{tool} {arguments}: {text}")
            return text

        # Set-up, not counted: main in the project.
        await call("list_windows", {})
        await call("wait_window", {"window": "main", "max_seconds": 20})
        # python3 in the terminals is this script's (the machine's may be a shim needing a HOME).
        os.makedirs(f"{project}/.bin", exist_ok=True)
        os.symlink(sys.executable, f"{project}/.bin/python3")
        setup = f"cd {project} && export PATH={project}/.bin:$PATH"
        await call("send_text", {"window": "main", "text": setup, "enter": True, "wait_seconds": 10})
        for number, (what, kind, arguments) in enumerate(STEPS, 1):
            texts = []
            if kind == "tool" and len(arguments) == 3:
                tool, relative, _ = arguments
                await call(tool, {"path": f"{project}/{relative['path']}"})
            elif kind == "tool":
                await call(*arguments)
            elif kind == "write":
                name, content = arguments
                await call("write_file", {"path": f"{project}/{name}", "content": content})
            elif kind == "command" and way == "one":
                await call("send_text", {"window": "main", "text": arguments, "enter": True, "wait_seconds": WAIT})
            elif kind == "command":
                await call("send_text", {"window": "main", "text": arguments, "enter": True})
                await call("wait_window", {"window": "main", "max_seconds": WAIT})
                await call("read_window", {"window": "main"})
            elif kind == "start" and way == "one":
                # Waited for a little: a build that ends at once is told in this call.
                await call("send_text", {"window": "build", "text": f"{setup} && {arguments}", "enter": True, "wait_seconds": 2})
            elif kind == "start":
                await call("send_text", {"window": "build", "text": f"{setup} && {arguments}", "enter": True})
            elif kind == "finish" and way == "one":
                await call("wait_window", {"window": arguments, "max_seconds": WAIT})
            elif kind == "finish":
                await call("wait_window", {"window": arguments, "max_seconds": WAIT})
                await call("read_window", {"window": arguments})
            size = sum(len(t.encode()) for t in texts)
            print(json.dumps({"step": number, "what": what, "kind": kind, "calls": len(texts), "bytes": size, "texts": texts}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:6]))
