//! The gate a job's pane runs, and the reading of its output up to the gate's end marker.

use std::io::Read;
use std::path::Path;

use tokio::sync::oneshot;

/// The pane's process: `sh -c GATE CMD GATE_FIFO MARKER`. It waits for the pipe to be set
/// up (a line on the FIFO), runs the command as its child, writes the end marker to the
/// terminal, waits for a second line (sent once the marker came through the pipe, so the
/// terminal is never closed with bytes in flight) and exits with the command's `$?`: the
/// shell's `128 + N` for a command killed by signal N, which [`Job::wait`](crate::Job::wait) reads back as that
/// signal (so `exit 143` reads as SIGTERM too: `sh` can not tell them apart). The gate always
/// exits, never dies by the command's signal, because tmux 3.2a has no `#{pane_dead_signal}`.
/// `INT`, `TERM` and `QUIT` sent to the process group reach the command; the gate outlives
/// them (a trap that does nothing, reset to the default in the command). Its own standard
/// error is `/dev/null` (the shell's `Terminated` message about its child), the command's is
/// the terminal (passed on fd 3).
///
/// Only a whole line lets the gate go the second time: a read that ends without one (end of
/// file, or its open cut by a trapped signal) is read again while the FIFO is there. The
/// first line's writer may still hold the FIFO open when a fast command is already done (its
/// process not yet run again to close it, on a loaded machine): the second open then finds
/// that writer, succeeds at once, and its close reads as an end of file, which let the gate
/// exit before the marker had come through (docs/design/jobs.md, step 4).
pub(super) const GATE: &str = r#"trap : INT TERM QUIT
exec 3>&2 2>/dev/null
read _ < "$1" || exit 125
(exec 2>&3 3>&-; trap - INT TERM QUIT; exec sh -c "$0")
s=$?
printf %s "$2"
until read _ < "$1"; do [ -p "$1" ] || break; done
exit "$s""#;

/// Reads the output FIFO to its end (the pane's removal closes tmux's pipe), signals once when
/// the end marker was read, and returns the bytes without it.
pub(super) fn read_output(
    path: &Path,
    marker: &[u8],
    seen: oneshot::Sender<()>,
) -> std::io::Result<Vec<u8>> {
    // The FIFO goes once its writer has it open, or when reading ends: never before (a shell
    // opening a name already removed would make a plain file of it, and this open would wait
    // for a writer for ever).
    let opened = std::fs::File::open(path);
    let _ = std::fs::remove_file(path);
    let mut file = opened?;
    let mut bytes = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut seen = Some(seen);
    let mut at = None;
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        bytes.extend_from_slice(&buf[..n]);
        if at.is_none() {
            let from = bytes.len().saturating_sub(n + marker.len());
            if let Some(pos) = memchr::memmem::find(&bytes[from..], marker) {
                at = Some(from + pos);
                if let Some(seen) = seen.take() {
                    let _ = seen.send(());
                }
            }
        }
    }
    if let Some(pos) = at {
        bytes.drain(pos..pos + marker.len());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};
    use std::os::unix::fs::OpenOptionsExt;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};

    use super::GATE;

    /// Opens the FIFO `path` for writing once its reader has it open (within 10 s).
    fn writer(path: &std::path::Path) -> std::fs::File {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(path)
            {
                Ok(file) => return file,
                Err(e) if e.raw_os_error() == Some(libc::ENXIO) && Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                Err(e) => panic!("opening the gate's FIFO: {e}"),
            }
        }
    }

    /// The first line's writer still holds the FIFO open when the command is done (its
    /// process not run again yet, on a loaded machine): its close is no second line, the gate
    /// keeps waiting for one, then exits with the command's status.
    #[test]
    fn the_first_lines_writer_closing_late_does_not_let_the_gate_go() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("gate");
        crate::fifo::make_fifo(&fifo).unwrap();
        let marker = "<end>";
        let mut gate = Command::new("sh")
            .arg("-c")
            .arg(GATE)
            .arg("exit 5")
            .arg(&fifo)
            .arg(marker)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = writer(&fifo);
        first.write_all(b"\n").unwrap();
        // The command ran and the marker came: the gate is at (or near) its second read.
        let mut out = gate.stdout.take().unwrap();
        let mut printed = Vec::new();
        let mut buf = [0u8; 64];
        while !printed.ends_with(marker.as_bytes()) {
            let n = out.read(&mut buf).unwrap();
            assert!(n > 0, "the gate ended before its marker: {printed:?}");
            printed.extend_from_slice(&buf[..n]);
        }
        // Time for its second open to find this writer, then the late close.
        std::thread::sleep(Duration::from_millis(200));
        drop(first);
        std::thread::sleep(Duration::from_millis(300));
        assert_eq!(
            gate.try_wait().unwrap(),
            None,
            "the gate exited without its second line"
        );
        writer(&fifo).write_all(b"\n").unwrap();
        let status = gate.wait().unwrap();
        assert_eq!(status.code(), Some(5));
    }
}
