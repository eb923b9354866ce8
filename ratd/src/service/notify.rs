//! systemd's notify protocol, as ratd uses it (`docs/design/status-and-logs.md`, systemd;
//! `sd_notify(3)`): one datagram per notification on the unix socket systemd names
//! in `NOTIFY_SOCKET`, holding `KEY=value` lines.
//!
//! A few lines rather than a library: the `sd-notify` crate reads
//! `NOTIFY_SOCKET` from the environment at each call, while ratd takes the variable out of its
//! environment before starting tmux (the terminals inherit ratd's environment, and systemd's own
//! tools report to that socket, which systemd then warns about in ratd's journal) and keeps the
//! address for itself: [`Notifier::from_env`] reads it once.
//!
//! Sent by ratd: `READY=1` once it serves, `STATUS=...` lines ([`super::status`]), and
//! `STOPPING=1` as soon as the door starts closing. Not used: the watchdog.

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::net::{SocketAddr, UnixDatagram};

/// The environment variable systemd names its notify socket in.
pub const NOTIFY_SOCKET: &str = "NOTIFY_SOCKET";

/// Where ratd tells systemd its state: the address of `NOTIFY_SOCKET`, read once, or nowhere
/// (not started by systemd with `Type=notify`), in which case every send does nothing.
#[derive(Debug, Clone, Default)]
pub struct Notifier {
    /// The socket address as systemd wrote it: a path, or `@name` for the abstract namespace.
    addr: Option<OsString>,
}

impl Notifier {
    /// The notifier for `NOTIFY_SOCKET` as the environment holds it now (nowhere when unset or
    /// empty). Read before the variable is taken out of the environment (ratd's `main` does, before
    /// any thread exists, as `remove_var` requires).
    pub fn from_env() -> Self {
        Self::to(std::env::var_os(NOTIFY_SOCKET).unwrap_or_default())
    }

    /// A notifier sending to `addr`: a socket path, or `@name` for an abstract socket, as
    /// systemd writes `NOTIFY_SOCKET`. Empty: nowhere.
    pub fn to(addr: impl Into<OsString>) -> Self {
        let addr = addr.into();
        Self {
            addr: (!addr.is_empty()).then_some(addr),
        }
    }

    /// A notifier sending nowhere.
    pub fn nowhere() -> Self {
        Self::default()
    }

    /// Whether ratd runs under systemd's notify protocol (a socket was named).
    pub fn is_enabled(&self) -> bool {
        self.addr.is_some()
    }

    /// The address notifications go to, as systemd named it.
    pub fn addr(&self) -> Option<&OsStr> {
        self.addr.as_deref()
    }

    /// Sends `READY=1`: ratd serves (systemctl start returns).
    ///
    /// # Errors
    /// The socket's, when the datagram could not be sent.
    pub fn ready(&self) -> io::Result<()> {
        self.send("READY=1\n")
    }

    /// Sends `STATUS=line`, the line `systemctl status` shows (new lines, which would end the
    /// field, are replaced by spaces).
    ///
    /// # Errors
    /// The socket's, when the datagram could not be sent.
    pub fn status(&self, line: &str) -> io::Result<()> {
        self.send(&format!("STATUS={}\n", line.replace('\n', " ")))
    }

    /// Sends `STOPPING=1`: the door starts closing.
    ///
    /// # Errors
    /// The socket's, when the datagram could not be sent.
    pub fn stopping(&self) -> io::Result<()> {
        self.send("STOPPING=1\n")
    }

    /// Sends `message` (`KEY=value` lines) as one datagram; does nothing without a socket.
    ///
    /// # Errors
    /// The socket's: a missing socket, a refused send, a partial write.
    pub fn send(&self, message: &str) -> io::Result<()> {
        let Some(addr) = &self.addr else {
            return Ok(());
        };
        let socket = UnixDatagram::unbound()?;
        socket.connect_addr(&socket_addr(addr)?)?;
        let sent = socket.send(message.as_bytes())?;
        if sent != message.len() {
            return Err(io::Error::new(
                io::ErrorKind::WriteZero,
                format!("only {sent} of {} bytes were sent", message.len()),
            ));
        }
        Ok(())
    }
}

/// The socket address of `NOTIFY_SOCKET`: `@name` is abstract (Linux), anything else a path.
fn socket_addr(addr: &OsStr) -> io::Result<SocketAddr> {
    match addr.as_bytes().strip_prefix(b"@") {
        Some(name) => {
            use std::os::linux::net::SocketAddrExt;
            SocketAddr::from_abstract_name(name)
        }
        None => SocketAddr::from_pathname(addr),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn received(socket: &UnixDatagram) -> String {
        let mut buf = [0u8; 4096];
        let n = socket.recv(&mut buf).expect("a datagram");
        String::from_utf8(buf[..n].to_vec()).unwrap()
    }

    #[test]
    fn each_notification_is_one_datagram_on_the_path() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notify");
        let socket = UnixDatagram::bind(&path).unwrap();
        let notifier = Notifier::to(path.as_os_str());
        assert!(notifier.is_enabled());
        notifier.ready().unwrap();
        notifier.status("serving\ntenant prod").unwrap();
        notifier.stopping().unwrap();
        assert_eq!(received(&socket), "READY=1\n");
        assert_eq!(received(&socket), "STATUS=serving tenant prod\n");
        assert_eq!(received(&socket), "STOPPING=1\n");
    }

    #[test]
    fn an_abstract_socket_is_reached_by_its_name() {
        use std::os::linux::net::SocketAddrExt;
        let name = format!("rat-notify-test-{}", std::process::id());
        let socket =
            UnixDatagram::bind_addr(&SocketAddr::from_abstract_name(name.as_bytes()).unwrap())
                .unwrap();
        Notifier::to(format!("@{name}")).ready().unwrap();
        assert_eq!(received(&socket), "READY=1\n");
    }

    #[test]
    fn without_a_socket_nothing_is_sent_and_nothing_fails() {
        let notifier = Notifier::to("");
        assert!(!notifier.is_enabled());
        notifier.ready().unwrap();
        Notifier::nowhere().stopping().unwrap();
    }

    #[test]
    fn a_missing_socket_is_an_error() {
        let error = Notifier::to("/nonexistent/notify").ready().unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::NotFound);
    }
}
