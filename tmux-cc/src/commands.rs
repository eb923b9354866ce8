//! Typed builders of the [`Command`]s that create and size sessions and windows and list
//! windows, for callers that send them in one write of their own (with
//! [`Client::input`](crate::Client::input)) rather than through the typed operations of
//! [`Client`](crate::Client). Each builder writes its arguments in one fixed order, so that
//! every caller sends tmux the same bytes for the same command.

use crate::command::Command;

/// `new-session -d -s NAME [-n WINDOW] -x WIDTH -y HEIGHT -c DIR`: a detached session named
/// `name`, its first window named `window` (tmux names it after its command when `None`),
/// `width` x `height`, started in `dir`.
///
/// ```
/// let cmd = tmux_cc::commands::new_session("work", Some("main"), (200, 24), "/home/me");
/// assert_eq!(
///     cmd.line().unwrap(),
///     b"new-session '-d' '-s' 'work' '-n' 'main' '-x' '200' '-y' '24' '-c' '/home/me'"
/// );
/// ```
pub fn new_session(
    name: &str,
    window: Option<&str>,
    (width, height): (u32, u32),
    dir: impl AsRef<[u8]>,
) -> Command {
    Command::new("new-session")
        .args(["-d", "-s", name])
        .opt("-n", window)
        .args(["-x", &width.to_string(), "-y", &height.to_string()])
        .arg("-c")
        .arg(dir)
}

/// `new-window -d -t TARGET -n NAME -c DIR`: a window named `name` in the session `target`
/// (e.g. `=work:`), not made current, started in `dir`. Size it with [`resize_window`].
pub fn new_window(target: &str, name: &str, dir: impl AsRef<[u8]>) -> Command {
    Command::new("new-window")
        .args(["-d", "-t", target, "-n", name, "-c"])
        .arg(dir)
}

/// `resize-window -t TARGET -x WIDTH -y HEIGHT`, which also sets `window-size manual` for
/// that one window (never set it globally: tmux 3.3a segfaults on the next new session).
pub fn resize_window(target: &str, width: u32, height: u32) -> Command {
    Command::new("resize-window").args([
        "-t",
        target,
        "-x",
        &width.to_string(),
        "-y",
        &height.to_string(),
    ])
}

/// `list-windows -t TARGET -F FORMAT`: one line per window of the session `target`, each
/// `format` expanded for the window and its active pane.
pub fn list_windows(target: &str, format: &str) -> Command {
    Command::new("list-windows").args(["-t", target, "-F", format])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(cmd: &Command) -> String {
        String::from_utf8(cmd.line().unwrap()).unwrap()
    }

    #[test]
    fn new_session_with_and_without_a_window_name() {
        assert_eq!(
            line(&new_session("s", Some("main"), (200, 24), "/h")),
            "new-session '-d' '-s' 's' '-n' 'main' '-x' '200' '-y' '24' '-c' '/h'"
        );
        assert_eq!(
            line(&new_session("check", None, (80, 5), b"/a b".as_slice())),
            "new-session '-d' '-s' 'check' '-x' '80' '-y' '5' '-c' '/a b'"
        );
    }

    #[test]
    fn new_window_resize_window_and_list_windows() {
        assert_eq!(
            line(&new_window("=s:", "build", "/h")),
            "new-window '-d' '-t' '=s:' '-n' 'build' '-c' '/h'"
        );
        assert_eq!(
            line(&resize_window("=s:=build", 200, 24)),
            "resize-window '-t' '=s:=build' '-x' '200' '-y' '24'"
        );
        let cmd = list_windows("=s", "n#{q:window_name} a#{window_activity}");
        assert_eq!(cmd.name(), "list-windows");
        assert_eq!(
            cmd.arguments(),
            [
                b"-t".to_vec(),
                b"=s".to_vec(),
                b"-F".to_vec(),
                b"n#{q:window_name} a#{window_activity}".to_vec()
            ]
        );
    }
}
