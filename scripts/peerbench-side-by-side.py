"""Side by side, in one run: rat from several builds (RAT_BUILDS, checkouts with release
binaries, separated by `:`), through the peer bench's rat adapter (../shared/peerbench: the
`rat` bridge, one-call send_text with a wait), W2 and W3, builds alternating round by round;
then each build's tmux server and ratd peak memory (VmHWM). Run with the peer bench's client
venv (mcp 2.3.0):

    RAT_BUILDS=/tmp/main-checkout:$PWD ROUNDS=4 N2=80 N3=20 venv/bin/python scripts/peerbench-side-by-side.py
"""
import asyncio, os, statistics, sys, tempfile, time
sys.path.insert(0, os.environ.get("PEERBENCH", os.path.join(os.path.dirname(__file__), "..", "..", "shared", "peerbench")))
import ratkit, servers, adapters  # noqa: E402

# A build is a checkout's path, optionally followed by `#` and ratd's extra arguments
# (`$PWD#--secrets show`): the same build is then measured with and without them.
BUILDS = []
for spec in os.environ["RAT_BUILDS"].split(":"):
    path, _, extra = spec.partition("#")
    BUILDS.append((os.path.basename(path.rstrip("/")) + (f" {extra}" if extra else ""), path, extra.split()))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
N2 = int(os.environ.get("N2", "60"))
N3 = int(os.environ.get("N3", "20"))


async def one(project, res, extra_args=()):
    ratkit.PROJECT = project
    ratkit.BIN = os.path.join(project, "target", "release")
    servers.RAT_BIN = os.path.join(ratkit.BIN, "rat")
    run_dir = tempfile.mkdtemp(prefix="i27peer-")
    with ratkit.Rat(clients=("alice", "bob"), extra_args=extra_args) as rat:
        async with servers.start("rat", run_dir, rat) as peer:
            a = adapters.make(peer, run_dir)
            await a.setup()
            for i in range(5):
                await a.w2(i)
            for i in range(N2):
                t0 = time.perf_counter_ns()
                r = await a.w2(i)
                res["w2"].append((time.perf_counter_ns() - t0) / 1e6)
                assert r["ok"], r
            for i in range(N3):
                t0 = time.perf_counter_ns()
                r = await a.w3(i)
                res["w3"].append((time.perf_counter_ns() - t0) / 1e6 - 300)
                assert r["ok"], r
            for i in range(3):
                await a.w6(i)
            res["last"] = r.get("status")
            res["w2_rounds"].append(statistics.median(res["w2"][-N2:]))
            tmux = servers.tmux_server_pid(f"/tmp/tmux-{os.getuid()}/rat-{rat.tenant}")
            res["tmux_hwm"].append(servers.proc_status(tmux, "VmHWM"))
            res["ratd_hwm"].append(servers.proc_status(rat.proc.pid, "VmHWM"))


async def main():
    results = {name: {"w2": [], "w3": [], "w2_rounds": [], "tmux_hwm": [], "ratd_hwm": []} for name, _, _ in BUILDS}
    for rnd in range(ROUNDS):
        order = BUILDS if rnd % 2 == 0 else BUILDS[::-1]
        for name, project, extra in order:
            await one(project, results[name], extra)
            print(f"round {rnd} {name} done, load {os.getloadavg()[0]:.1f}", flush=True)
    for name, r in results.items():
        q = lambda xs, p: sorted(xs)[min(len(xs) - 1, int(p * len(xs)))]
        print(f"{name}: W2 p50 {statistics.median(r['w2']):.2f} ms p99 {q(r['w2'], .99):.2f} (n={len(r['w2'])}); "
              f"W3 p50 +{statistics.median(r['w3']):.2f} ms p99 +{q(r['w3'], .99):.2f} (n={len(r['w3'])}); "
              f"W2 p50 of each round {[round(x, 2) for x in r['w2_rounds']]}; "
              f"W2 over 5 ms {sum(x > 5 for x in r['w2'])}/{len(r['w2'])}; "
              f"tmux server VmHWM {r['tmux_hwm']}; ratd VmHWM {r['ratd_hwm']}; last answer {r.get('last')!r}")


asyncio.run(main())
