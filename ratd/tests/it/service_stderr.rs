//! A dead log reader never disables the kill switch (`docs/design/terminals.md`, Shutdown): the
//! real ratd binary, its stderr a pipe whose read end is closed once ratd serves (as `ratd 2>&1 |
//! head -3` leaves it), then SIGTERM or SIGINT: ratd exits with status 0 and its tmux server is
//! gone. Each log line written after the close fails with EPIPE; tracing-subscriber's report of
//! that failure, through `eprintln!`, used to panic the task that handles the signal, and ratd then
//! served on until SIGKILL.

use std::io::Read;

use crate::service_common::{Daemon, tmux_server_pid};
use nix::sys::signal::Signal;

/// The read end of ratd's stderr, closed (dropped) once the line `ratd serving` went through.
struct ClosedAfterServing {
    pipe: Option<std::io::PipeReader>,
    read: Vec<u8>,
}

impl Read for ClosedAfterServing {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let Some(pipe) = self.pipe.as_mut() else {
            return Ok(0);
        };
        let n = pipe.read(buf)?;
        self.read.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&self.read);
        if let Some(at) = text.find("ratd serving")
            && text[at..].contains('\n')
        {
            // The reader exits: from now on ratd's writes to stderr fail with EPIPE.
            self.pipe = None;
        }
        Ok(n)
    }
}

/// Starts ratd with its stderr a pipe, closes the read end once ratd serves, sends `signal`,
/// and checks that ratd stops in order: exit status 0, the tmux server `rat-<tenant>` gone.
fn stops_with_a_dead_log_reader(signal: Signal) {
    let mut ratd = Daemon::spawn_with(&[], |command| {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        command.stderr(writer);
        Box::new(ClosedAfterServing {
            pipe: Some(reader),
            read: Vec::new(),
        })
    });
    ratd.wait_serving();
    assert!(
        tmux_server_pid(&ratd.guard.socket).is_some(),
        "the tmux server of the tenant runs while ratd serves"
    );
    // The reader thread ends when the read end is dropped: its lines channel then closes.
    while let Ok(line) = ratd.lines.recv() {
        ratd.seen.push(line);
    }

    ratd.signal(signal);
    let status = ratd.wait_exit();
    assert_eq!(status.code(), Some(0), "{status}: {:#?}", ratd.seen);
    assert_eq!(
        tmux_server_pid(&ratd.guard.socket),
        None,
        "ratd stopped its tmux server"
    );
}

#[test]
fn sigterm_stops_ratd_whose_stderr_reader_exited() {
    stops_with_a_dead_log_reader(Signal::SIGTERM);
}

#[test]
fn sigint_stops_ratd_whose_stderr_reader_exited() {
    stops_with_a_dead_log_reader(Signal::SIGINT);
}
