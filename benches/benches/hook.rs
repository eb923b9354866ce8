//! The prompt hook's cost per prompt, its piece that hands ratd the shell's secret-named
//! variables off against on (docs/benchmarks.md, Secrets). One bash runs rat's start-up file
//! and calls its hook as PROMPT_COMMAND would, N times a case, the cases interleaved over
//! several rounds so that the machine's load falls on all alike; the median round is told.
//!
//! Cases: the piece off (`__rat_sec` empty: the hook as before it, less one test); on, after a
//! command whose words can set no variable (not listed: one `read` of ratd's answer file more);
//! on and listed, with no secret-named variable (the gate's `compgen` alone); listed, with two
//! such variables unchanged (compared, nothing written); listed, with one changed at every
//! prompt (written).
//!
//! `cargo bench -p benches --bench hook` (`HOOK_BENCH_PROMPTS`, `HOOK_BENCH_ROUNDS`).

fn env_number(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let n = env_number("HOOK_BENCH_PROMPTS", 1000);
    let rounds = env_number("HOOK_BENCH_ROUNDS", 7);
    // In memory, as ratd puts it (`HookDir::create`): on a disk, a file rewritten is flushed.
    let dir = tempfile::tempdir_in("/dev/shm")
        .or_else(|_| tempfile::tempdir())
        .expect("hook dir");
    for sub in ["in", "out", "env"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
    }
    std::fs::write(dir.path().join("in/0"), "5 5\n").unwrap();
    assert!(
        std::process::Command::new("mkfifo")
            .arg(dir.path().join("sleep"))
            .status()
            .unwrap()
            .success()
    );
    let rc = rat_core::terminals::hook::rc(dir.path());
    std::fs::write(dir.path().join("rc"), &rc).unwrap();
    let gate = rc
        .split_once("compgen -v -X '!")
        .and_then(|(_, rest)| rest.split_once('\''))
        .expect("the hook's gate")
        .0
        .to_string();
    let home_dir = tempfile::tempdir().expect("home");
    let home = home_dir.path().to_string_lossy().into_owned();
    // A pane's environment is ratd's: a service's is small; cargo's here holds some 100 more.
    let clean: Vec<(String, String)> = [
        ("HOME", home.as_str()),
        ("PATH", "/usr/local/bin:/usr/bin:/bin"),
        ("LANG", "C.UTF-8"),
        ("TERM", "tmux-256color"),
        ("USER", "rat"),
        ("LOGNAME", "rat"),
        ("SHELL", "/bin/bash"),
        ("EDITOR", "vi"),
        ("TMUX", "/tmp/tmux-1000/rat,1234,0"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    for (what, env) in [
        ("a service's environment", Some(clean)),
        ("cargo's environment, inherited", None),
    ] {
        run(what, dir.path(), &home, &gate, n, rounds, env);
    }
}

/// Each case: its name, what it sets before its loop, what each prompt runs. Every prompt
/// follows a command (`__rat_cn` changes), as after an input; `in/0` holds what ratd last
/// answered: `5 5 0 true` an input of the word `true`, which can set no variable (no listing);
/// `5 5 5` an input that could (listed, as after `export X=...`).
const CASES: [(&str, &str, &str); 6] = [
    ("bare loop", "__rat_sec=", "__rat_lb=4; :"),
    ("off", "__rat_sec=", "__rat_lb=4; __rat_hook"),
    (
        "on, after a command that can set no variable (not listed)",
        "__rat_sec=1; echo '5 5 0 true' >in/0",
        "__rat_lb=4; __rat_hook",
    ),
    (
        "on, listed, no secret-named variable",
        "__rat_sec=1; echo '5 5 5' >in/0",
        "__rat_lb=4; __rat_hook",
    ),
    (
        "on, listed, 2 secret-named variables unchanged",
        "__rat_sec=1 DB_PASSWORD=hunter2x9hunter GITHUB_TOKEN=abcdefghijklmnopqrstuvwxyz; \
         echo '5 5 5' >in/0",
        "__rat_lb=4; __rat_hook",
    ),
    (
        "on, listed, 1 of them changed at every prompt",
        "__rat_sec=1 GITHUB_TOKEN=abcdefghijklmnopqrstuvwxyz; echo '5 5 5' >in/0",
        "DB_PASSWORD=hunter2x9hunter$i; __rat_lb=4; __rat_hook",
    ),
];

fn run(
    what: &str,
    dir: &std::path::Path,
    home: &str,
    gate: &str,
    n: u32,
    rounds: u32,
    env: Option<Vec<(String, String)>>,
) {
    let mut script = String::from(". ./rc >/dev/null 2>&1\n__rat_cn='$i'\n");
    script += &format!("for ((round = 0; round < {rounds}; round++)); do\n");
    for (k, (_, set, body)) in CASES.iter().enumerate() {
        script += &format!(
            "  unset DB_PASSWORD GITHUB_TOKEN; {set}; t0=$EPOCHREALTIME\n  \
             for ((i = 0; i < {n}; i++)); do __rat_s=(0 0); {body}; done\n  \
             t1=$EPOCHREALTIME; echo \"{k} $(( ${{t1/./}} - ${{t0/./}} ))\"\n"
        );
    }
    script += "done\n";
    // The variables of the shell, and those that pass the hook's gate (they cost its loop).
    script += &format!(
        "unset DB_PASSWORD GITHUB_TOKEN; echo \"gate $(compgen -v | wc -l) \
         $(compgen -v -X '!{gate}' | tr '\\n' ' ')\"\n"
    );
    let mut command = std::process::Command::new("bash");
    command
        .args(["--norc", "--noprofile", "-c", &script])
        .current_dir(dir)
        .env("HOME", home)
        .env("TMUX_PANE", "%0");
    if let Some(env) = env {
        command.env_clear().envs(env).env("TMUX_PANE", "%0");
    }
    let out = command.output().expect("bash runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); CASES.len()];
    let mut gated = String::new();
    for line in text.lines() {
        if let Some(gate) = line.strip_prefix("gate ") {
            let (all, through) = gate.split_once(' ').unwrap_or((gate, ""));
            gated = format!("{all} variables, through the gate: [{}]", through.trim());
            continue;
        }
        let mut fields = line.split(' ');
        let (Some(k), Some(us)) = (fields.next(), fields.next()) else {
            continue;
        };
        if let (Ok(k), Ok(us)) = (k.parse::<usize>(), us.parse::<f64>()) {
            times[k].push(us / f64::from(n));
        }
    }
    assert!(
        times.iter().all(|t| t.len() == rounds as usize),
        "bash said: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bare = median(times[0].clone());
    let off = median(times[1].clone()) - bare;
    println!(
        "prompt hook per prompt, {what} ({gated}); {n} prompts a case, {rounds} rounds \
         interleaved, median round, less the loop's own {bare:.1} µs:"
    );
    for (k, (name, _, _)) in CASES.iter().enumerate().skip(1) {
        let each = median(times[k].clone()) - bare;
        println!("  {name}: {each:.1} µs ({:+.1} µs against off)", each - off);
    }
}
