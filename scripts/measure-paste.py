#!/usr/bin/env python3
"""What programs do with a tmux paste and with typed keys (docs/design/terminals.md, send_text).

Each case runs in a tmux server of its own, on a private socket (`-L measure-paste-PID-N`,
`-f /dev/null`, killed by that socket at the end), with a home directory of its own (no user
startup file of vim, python or node): a window of 200x24 running `bash --norc`, the program
started in it, its output bytes kept by `pipe-pane -O`. A text goes in as rat pastes it
(`load-buffer`, `paste-buffer -p -r -d`, then `send-keys Enter` if asked) or as rat types it
(`send-keys -l`, then Enter). What happened is read on the screen (`capture-pane`), in the
foreground (`#{pane_current_command}`) and in the files written. Whether the program asked for
bracketed paste is read from its own bytes: the last `ESC[?2004h` or `ESC[?2004l` it printed
before the text went in.

    scripts/measure-paste.py [TMUX]      # tmux first on PATH when not named

Prints one row per case, as the table of docs/design/terminals.md. psql is measured when a
server answers `psql -X -c 'select 1'` as it is started (PGHOST, PGUSER, ... from the
environment); otherwise its row says it was not measured.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TMUX = sys.argv[1] if len(sys.argv) > 1 else shutil.which("tmux")
COUNTER = [0]
# The interpreter itself, not a version manager's shim (which reads the home directory).
PYTHON = os.path.realpath(shutil.which("python3") and subprocess.run(
    ["python3", "-c", "import sys; print(sys.executable)"], capture_output=True, text=True
).stdout.strip())


class Pane:
    """A private tmux server with one window running bash, its output kept."""

    def __init__(self, home):
        COUNTER[0] += 1
        self.socket = f"measure-paste-{os.getpid()}-{COUNTER[0]}"
        self.home = home
        self.out = os.path.join(home, f"out-{COUNTER[0]}.bin")
        env = dict(os.environ, HOME=home, PS1="$ ", PAGER="cat")
        env.pop("TMUX", None)
        self.env = env
        self.tmux("-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "24",
                  "-c", home, "bash --norc --noprofile")
        self.path = self.tmux("display-message", "-p", "#{socket_path}").strip()
        self.tmux("pipe-pane", "-O", "-t", "=0:", f"cat >> {self.out}")
        time.sleep(0.3)

    def tmux(self, *args):
        return subprocess.run([TMUX, "-L", self.socket, *args], env=self.env,
                              capture_output=True, text=True).stdout

    def close(self):
        self.tmux("kill-server")
        # Some releases (3.3a) leave the socket file behind.
        if self.path and os.path.exists(self.path):
            os.remove(self.path)

    def keys(self, *keys):
        self.tmux("send-keys", "-t", "=0:", "--", *keys)

    def typed(self, text, enter):
        if text:
            # tmux reads an argument ending in `;` as a command separator: `\;` keeps it.
            literal = text[:-1] + "\\;" if text.endswith(";") else text
            self.tmux("send-keys", "-l", "-t", "=0:", "--", literal)
        if enter:
            self.keys("Enter")

    def pasted(self, text, enter):
        path = os.path.join(self.home, "buffer")
        with open(path, "w") as f:
            f.write(text)
        self.tmux("load-buffer", "-b", "m", "--", path)
        self.tmux("paste-buffer", "-p", "-r", "-d", "-b", "m", "-t", "=0:")
        if enter:
            self.keys("Enter")

    def command(self):
        return self.tmux("display-message", "-p", "-t", "=0:", "#{pane_current_command}").strip()

    def screen(self):
        return self.tmux("capture-pane", "-p", "-t", "=0:").rstrip("\n")

    def bracketed(self):
        """The last bracketed-paste mode the pane's programs printed: on, off, or never."""
        data = open(self.out, "rb").read() if os.path.exists(self.out) else b""
        last = None
        for m in re.finditer(rb"\x1b\[\?([0-9;]*)([hl])", data):
            if b"2004" in m.group(1).split(b";"):
                last = "on" if m.group(2) == b"h" else "off"
        return last or "never"

    def start(self, line, command, settle=1.0):
        self.typed(line, True)
        for _ in range(200):
            if self.command() == command:
                break
            time.sleep(0.02)
        time.sleep(settle)


def tail(screen, n=4):
    lines = [l.rstrip() for l in screen.splitlines() if l.strip()]
    return " / ".join(lines[-n:])


def vim_normal(pane, how):
    path = os.path.join(pane.home, "v.txt")
    with open(path, "w") as f:
        f.write("hello\n")
    pane.start("vim v.txt", "vim")
    mode = pane.bracketed()
    how(pane, ":wq", True)
    time.sleep(1)
    ran = pane.command() != "vim"
    if not ran:
        pane.keys("Escape", ":", "w", "q", "Enter")
        time.sleep(0.5)
    return mode, f"{'vim exited' if ran else 'vim still runs'}; file {open(path).read()!r}"


def vim_insert(pane, how):
    path = os.path.join(pane.home, "v.txt")
    with open(path, "w") as f:
        f.write("")
    pane.start("vim v.txt", "vim")
    mode = pane.bracketed()
    pane.keys("i")
    time.sleep(0.2)
    how(pane, "say hello", False)
    time.sleep(0.3)
    pane.keys("Escape")
    time.sleep(0.2)
    how(pane, ":wq", True)
    time.sleep(1)
    ran = pane.command() != "vim"
    if not ran:
        pane.keys("Escape", ":", "w", "q", "!", "Enter")
        time.sleep(0.5)
    return mode, f"{'vim exited' if ran else 'vim still runs'}; file {open(path).read()!r}"


def less(pane, how):
    pane.start("seq 100 | less", "less")
    mode = pane.bracketed()
    how(pane, "q", False)
    time.sleep(0.8)
    return mode, "less quit" if pane.command() != "less" else "less still runs"


def repl(start, command, one, lines):
    def case(pane, how, multi):
        pane.start(start, command, settle=1.5)
        mode = pane.bracketed()
        if not multi:
            how(pane, one, True)
            time.sleep(1)
            return mode, f"screen ends: {tail(pane.screen(), 2)}"
        how(pane, lines, False)
        time.sleep(1)
        before = tail(pane.screen(), 4)
        pane.keys("Enter")
        time.sleep(1)
        after = tail(pane.screen(), 4)
        return mode, f"before Enter: {before} || after Enter: {after}"
    return case


def psql_available():
    if not shutil.which("psql"):
        return False
    r = subprocess.run(["psql", "-X", "-c", "select 1"], capture_output=True, timeout=10)
    return r.returncode == 0


CASES = [
    ("vim 9.0, normal mode, `:wq` + Enter", vim_normal, None),
    ("vim 9.0, insert mode, `say hello`, Escape, `:wq` + Enter", vim_insert, None),
    ("less, `q`", less, None),
]
REPLS = [
    ("python3 REPL", f"{PYTHON} -q", "python3", "print(6*7)", "x = 6\nprint(x*7)\n"),
    ("node REPL", "node", "node", "6*7", "let x = 6\nx*7\n"),
    ("bc -q", "bc -q", "bc", "6*7", "2+2\n3+3\n"),
    ("sqlite3", "sqlite3", "sqlite3", "select 6*7;", "select 2+2;\nselect 3+3;\n"),
    ("psql", "psql -X", "psql", "select 6*7;", "select 2+2;\nselect 3+3;\n"),
]


def main():
    print(f"# {subprocess.run([TMUX, '-V'], capture_output=True, text=True).stdout.strip()}")
    has_psql = psql_available()
    rows = []
    for name, case, _ in CASES:
        for label, how in (("pasted", Pane.pasted), ("typed", Pane.typed)):
            rows.append((name, label, case, how, None))
    for name, start, command, one, lines in REPLS:
        if command == "psql" and not has_psql:
            print(f"| {name} | not measured: no server answers `psql -X` here |")
            continue
        case = repl(start, command, one, lines)
        for multi in (False, True):
            shown = f"{name}, `{(lines if multi else one)!r}`" + ("" if multi else " + Enter")
            for label, how in (("pasted", Pane.pasted), ("typed", Pane.typed)):
                rows.append((shown, label, case, how, multi))
    for name, label, case, how, multi in rows:
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as home:
            pane = Pane(home)
            try:
                mode, what = case(pane, how) if multi is None else case(pane, how, multi)
            finally:
                pane.close()
                time.sleep(0.2)
        print(f"| {name} | {label} | bracketed paste {mode} | {what} |", flush=True)


if __name__ == "__main__":
    main()
