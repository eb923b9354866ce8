//! Running a client as a subprocess with a deadline, its output kept whole.

use std::io::Read;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// What a client subprocess printed, once it exited with status 0.
#[derive(Debug, Clone)]
pub struct Output {
    /// Its standard output.
    pub stdout: String,
    /// Its standard error.
    pub stderr: String,
}

/// Runs `command` (stdin closed) for at most `timeout`, and returns what it printed.
///
/// # Panics
/// When it can not start, runs over `timeout` (it is killed), or exits other than 0: the
/// message shows `what`, the status, and both outputs.
pub fn run(what: &str, command: &mut Command, timeout: Duration) -> Output {
    let (status, output) = run_to_exit(what, command, timeout);
    assert!(
        status.success(),
        "{what} failed ({status})\n--- stdout:\n{}\n--- stderr:\n{}",
        output.stdout,
        output.stderr
    );
    output
}

/// Runs `command` (stdin closed) for at most `timeout`, and returns how it exited and what it
/// printed, whatever the status.
///
/// # Panics
/// When it can not start, or runs over `timeout` (it is killed; both outputs are shown).
pub fn run_to_exit(what: &str, command: &mut Command, timeout: Duration) -> (ExitStatus, Output) {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{what} can not start: {e}"));
    let stdout = reader(child.stdout.take().expect("stdout"));
    let stderr = reader(child.stderr.take().expect("stderr"));
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().expect("the client's status") {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = Output {
        stdout: stdout.join().expect("stdout read"),
        stderr: stderr.join().expect("stderr read"),
    };
    match status {
        Some(status) => (status, output),
        None => panic!(
            "{what} did not finish within {timeout:?}, killed\n--- stdout:\n{}\n--- stderr:\n{}",
            output.stdout, output.stderr
        ),
    }
}

fn reader(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}
