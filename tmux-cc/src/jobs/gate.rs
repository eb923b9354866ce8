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
pub(super) const GATE: &str = r#"trap : INT TERM QUIT
exec 3>&2 2>/dev/null
read _ < "$1" || exit 125
(exec 2>&3 3>&-; trap - INT TERM QUIT; exec sh -c "$0")
s=$?
printf %s "$2"
read _ < "$1"
exit "$s""#;

/// Reads the output FIFO to its end (the pane's removal closes tmux's pipe), tells once when
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
