//! Exit statuses and waits under the prompt frameworks users have, each installed from the
//! package registry (Debian's direnv, zoxide, liquidprompt, powerline: `scripts/test` installs
//! them) and set up in `~/.bashrc` as its documentation says, in a home whose `~/.profile`
//! reads `~/.bashrc` as Debian's `/etc/skel/.profile` does. Plus pyenv-virtualenv's hook (its
//! `virtualenv-init` output, with `pyenv` itself a stub), a bash-preexec-style DEBUG trap that
//! puts its own hook first at its first prompt, and a `PROMPT_COMMAND` array.
//!
//! Each must show: `(exit 3)` tells 3, `false | true` tells the pipeline's 1 0, and a job
//! started in the background after a failure tells 0, in `wait_window` and `list_windows`; a
//! bash started inside gets rat's hook (its `(exit 3)` told, and its own `exit 4`). And
//! the hook itself: it never blocks a prompt, whatever ratd does.

use crate::common::*;

/// Debian's `/etc/skel/.profile`, as far as bash goes.
const PROFILE: &str = r#"if [ -n "$BASH_VERSION" ]; then
    # include .bashrc if it exists
    if [ -f "$HOME/.bashrc" ]; then
	. "$HOME/.bashrc"
    fi
fi
"#;

/// A program a framework needs, which `scripts/test` installs: its absence fails the test,
/// saying what to install (never a skip).
fn needs(program: &str, package: &str) {
    let found = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
        .unwrap_or(false);
    assert!(
        found,
        "{program} is missing: install the Debian package {package} (scripts/test does)"
    );
}

async fn statuses_hold(bashrc: &str) {
    let bashrc = format!("{bashrc}\n");
    let f = start(Home {
        files: &[(".profile", PROFILE), (".bashrc", &bashrc)],
        ..Home::default()
    })
    .await;
    let check = f.controller.check_terminals().await;
    assert!(all_hold(&check), "{check:?}");
    assert!(check.warnings().is_empty(), "{:?}", check.warnings());
    let t = f.controller.session("s");
    let first = waited(&t, "main", 30).await;
    assert_eq!(
        f.redact(&first.text),
        "[your terminals did not exist: a fresh main was just created] main: bash is at its \
         prompt (Ns ago), ready for input."
    );
    let run = |line: &'static str| {
        let t = t.clone();
        async move {
            t.send_text(text("main", line, true)).await;
            waited(&t, "main", 30).await.text
        }
    };
    // A first command (a framework may install itself at the first prompt), then the checks.
    run("true").await;
    let three = run("(exit 3)").await;
    assert_eq!(
        f.redact(&three),
        "main: the command finished Ns ago, exit status 3.\nNothing printed."
    );
    let list = t.list_windows().await.text;
    assert!(
        list.contains("last command exited with status 3 ("),
        "{list}"
    );
    let pipeline = run("false | true").await;
    assert_eq!(
        f.redact(&pipeline),
        "main: the command finished Ns ago: command 1 of its pipeline of 2 exited with status 1. \
         The pipeline exits with the status of its last command, 0, as bash reports it \
         (statuses, left to right: 1 0).\nNothing printed."
    );
    let list = t.list_windows().await.text;
    assert!(
        list.contains(
            "last command exited with status 0, command 1 of its pipeline of 2 with 1 (statuses: 1 0)"
        ),
        "{list}"
    );
    // What a command printed comes with its wait, the framework's prompt left out.
    let two = run("echo one; echo two").await;
    assert_eq!(
        f.redact(&two),
        "main: the command finished Ns ago, exit status 0.\n[2 rows printed]\none\ntwo"
    );
    let failed = run("false").await;
    assert!(
        failed.ends_with("exit status 1.\nNothing printed."),
        "{failed}"
    );
    let job = run("sleep 1 &").await;
    let (told, pid) = job.rsplit_once("\n[1] ").unwrap_or_else(|| panic!("{job}"));
    assert_eq!(
        f.redact(told),
        "main: the command finished Ns ago, exit status 0.\n[1 row printed]"
    );
    assert!(pid.parse::<u32>().is_ok(), "{job}");
    // A bash started inside, which reads the framework's .bashrc again, gets rat's hook.
    let inner = run("bash").await;
    let first = inner.lines().next().unwrap_or("");
    assert!(
        first.starts_with("main: a bash started inside this one (process ")
            && first.ends_with(
                ") is at its prompt, ready for input; waits tell its commands as the outer shell's."
            ),
        "{inner}"
    );
    let three = run("(exit 3)").await;
    assert_eq!(
        f.redact(&three),
        "main: the command finished Ns ago, exit status 3.\nNothing printed."
    );
    let out = run("exit 4").await;
    assert_eq!(
        f.redact(out.lines().next().unwrap_or("")),
        "main: the command finished Ns ago, exit status 4."
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn direnv() {
    needs("direnv", "direnv");
    statuses_hold(r#"eval "$(direnv hook bash)""#).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zoxide() {
    needs("zoxide", "zoxide");
    statuses_hold(r#"eval "$(zoxide init bash)""#).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn liquidprompt() {
    assert!(
        std::path::Path::new("/usr/share/liquidprompt/liquidprompt").is_file(),
        "liquidprompt is missing: install the Debian package liquidprompt (scripts/test does)"
    );
    statuses_hold("[[ $- = *i* ]] && source /usr/share/liquidprompt/liquidprompt").await;
}

/// Stops the test's powerline daemon, by its own socket, when the test ends.
struct PowerlineDaemon(std::path::PathBuf);

impl Drop for PowerlineDaemon {
    fn drop(&mut self) {
        let _ = std::process::Command::new("powerline-daemon")
            .args(["-q", "-k", "--socket"])
            .arg(&self.0)
            .status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn powerline() {
    let bindings = "/usr/share/powerline/bindings/bash/powerline.sh";
    assert!(
        std::path::Path::new(bindings).is_file(),
        "powerline is missing: install the Debian package powerline (scripts/test does)"
    );
    needs("powerline-daemon", "powerline");
    // As its documentation sets it up, with the daemon (without it, each prompt starts
    // Python: seconds), on a socket of the test's own, stopped at the end.
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("powerline.sock");
    let _daemon = PowerlineDaemon(socket.clone());
    let socket = socket.display();
    statuses_hold(&format!(
        "powerline-daemon -q --socket {socket}\n\
         POWERLINE_COMMAND_ARGS=\"--socket {socket}\"\n\
         POWERLINE_BASH_CONTINUATION=1\n\
         POWERLINE_BASH_SELECT=1\n\
         . {bindings}"
    ))
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pyenv_virtualenv_hook() {
    // What `pyenv virtualenv-init -` prints for bash, with pyenv a stub answering nothing.
    statuses_hold(
        r#"pyenv() { return 1; }
export PYENV_VIRTUALENV_INIT=1;
_pyenv_virtualenv_hook() {
  local ret=$?
  if [ -n "${VIRTUAL_ENV-}" ]; then
    eval "$(pyenv sh-activate --quiet || pyenv sh-deactivate --quiet || true)" || true
  else
    eval "$(pyenv sh-activate --quiet || true)" || true
  fi
  return $ret
};
if ! [[ "${PROMPT_COMMAND-}" =~ _pyenv_virtualenv_hook ]]; then
  PROMPT_COMMAND="_pyenv_virtualenv_hook;${PROMPT_COMMAND-}"
fi"#,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bash_preexec_style_debug_trap() {
    // As bash-preexec does: a DEBUG trap for preexec, and at the first prompt a rewrite of
    // PROMPT_COMMAND putting its precmd first (newline-joined), which runs commands of its own
    // and leaves only $? behind.
    statuses_hold(
        r#"__bp_preexec() { [ -n "${COMP_LINE-}" ] && return; __bp_ran=1; }
__bp_precmd_invoke_cmd() {
  __bp_last_ret_value="$?"
  local f; for f in "${precmd_functions[@]}"; do "$f"; done
  return "$__bp_last_ret_value"
}
__bp_install() {
  trap '__bp_preexec "$_"' DEBUG
  PROMPT_COMMAND=$'__bp_precmd_invoke_cmd\n'"${PROMPT_COMMAND//__bp_install/:}"$'\n:'
}
precmd_functions=(__my_precmd)
__my_precmd() { __seen=$((${__seen:-0}+1)); }
PROMPT_COMMAND="${PROMPT_COMMAND:+$PROMPT_COMMAND$'\n'}__bp_install""#,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_command_array() {
    statuses_hold(r#"PROMPT_COMMAND=('history -a' '__x=$((${__x:-0}+1))' 'false')"#).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn startup_files_shadowing_the_builtins_the_hook_uses() {
    // Aliases and functions of a user's named like the builtins the hook runs, and set -u.
    statuses_hold(
        r#"alias printf='printf >/dev/null'
alias read=false
bind() { return 1; }
set -u"#,
    )
    .await;
}

/// Runs rat's hook `n` times in a bash that read rat's start-up file for the hook directory
/// `dir` (`BASH_ENV`), its standard input an open, empty pipe as a terminal with nothing typed.
/// Returns whether bash finished within 60 s, and its output.
fn hook_runs(dir: &std::path::Path, n: u32) -> (bool, String) {
    use std::io::Read;
    let home = tempfile::tempdir().unwrap();
    let rc = home.path().join("rc");
    std::fs::write(&rc, rat_core::terminals::hook::rc(dir)).unwrap();
    let mut child = std::process::Command::new("bash")
        .args([
            "-c",
            &format!("for ((i = 0; i < {n}; i++)); do __rat_s=(0 0); __rat_hook; done; echo ran"),
        ])
        .env("BASH_ENV", &rc)
        .env("HOME", home.path())
        .env("TMUX_PANE", "%0")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take();
    let started = std::time::Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if started.elapsed() > std::time::Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            return (false, String::new());
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    drop(stdin);
    let mut out = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    (true, out)
}

#[test]
fn the_hook_never_blocks_a_prompt_whether_ratd_reads_is_stopped_or_gone() {
    // ratd stopped (SIGSTOP) or killed: its directory stays, nobody reads. Each prompt replaces
    // its pane's record: nothing accumulates, nothing waits.
    let dir = tempfile::tempdir().unwrap();
    for sub in ["in", "out"] {
        std::fs::create_dir(dir.path().join(sub)).unwrap();
    }
    std::fs::write(dir.path().join("in/0"), "3 3\n").unwrap();
    assert!(
        std::process::Command::new("mkfifo")
            .arg(dir.path().join("sleep"))
            .status()
            .unwrap()
            .success()
    );
    let (done, out) = hook_runs(dir.path(), 2000);
    assert!(done && out.trim() == "ran", "{out}");
    let record = std::fs::read_to_string(dir.path().join("out/0")).unwrap();
    assert!(
        record.starts_with("R 0 3 ") && record.ends_with(" E\n"),
        "{record:?}"
    );
    let files = std::fs::read_dir(dir.path().join("out")).unwrap().count();
    assert_eq!(files, 1);
    // ratd stopped in the middle of an input (written, tmux's answer never recorded): each
    // prompt waits a moment for it, never more.
    std::fs::write(dir.path().join("in/0"), "4 3\n").unwrap();
    let (done, out) = hook_runs(dir.path(), 5);
    assert!(done && out.trim() == "ran", "{out}");
    let record = std::fs::read_to_string(dir.path().join("out/0")).unwrap();
    assert!(record.starts_with("R 0 3 "), "{record:?}");
    // ratd gone, its directory removed: the hook writes nothing and goes on.
    let gone = dir.path().to_path_buf();
    drop(dir);
    let (done, out) = hook_runs(&gone, 200);
    assert!(done && out.trim() == "ran", "{out}");
    assert!(!gone.exists());
}
