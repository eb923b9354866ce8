//! A real ratd for a test: a fresh bundle, a port the system chose, its log kept, stopped
//! and its tmux server killed by name when dropped.

use std::io::{BufRead, BufReader};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nix::sys::signal::{self, Signal};
use nix::unistd::Pid;

use crate::{SocketGuard, binaries, strip_ansi, tmux_server_running, unique_name};

/// A ratd serving a fresh bundle on 127.0.0.1 (a port the system chose), with its log kept.
/// Dropping it stops ratd with SIGTERM (SIGKILL after 20 seconds), then kills its tmux server
/// by socket name in any case; when the test is failing, ratd's log is printed first.
pub struct Ratd {
    /// The tenant, unique to this ratd: its tmux socket is `rat-TENANT`.
    pub tenant: String,
    /// Where ratd listens.
    pub addr: SocketAddr,
    dir: tempfile::TempDir,
    child: Child,
    log: Arc<Mutex<Vec<String>>>,
    // Dropped after the fields above, once `drop` stopped ratd.
    tmux: SocketGuard,
}

impl Ratd {
    /// Generates a bundle of tenant [`unique_name`]`(prefix)` with `clients`, and starts ratd
    /// on `127.0.0.1:0` with it, waiting (30 seconds at most) for its `ratd serving` log line,
    /// which tells the port.
    ///
    /// # Panics
    /// When the bundle can not be written, ratd does not start, exits, or does not serve in
    /// time (its log is shown).
    pub fn start(prefix: &str, clients: &[&str]) -> Ratd {
        let binaries = binaries();
        let tenant = unique_name(prefix);
        let tmux = SocketGuard::named(format!("rat-{tenant}"));
        let dir = tempfile::Builder::new()
            .prefix("rat-e2e-")
            .tempdir()
            .expect("a temporary directory");
        rat_wire::mtls::generate(&tenant, clients, &dir.path().join("bundle"))
            .expect("the bundle is generated");
        // A home of its own: the terminals start there, with no startup file of the user
        // running the tests (a PROMPT_COMMAND hook run before rat's, such as pyenv's, loses
        // the statuses of pipelines: ratd would rightly tell none).
        // Its one startup file sets a prompt that reads the same for every user and machine.
        let home = dir.path().join("home");
        std::fs::create_dir(&home).expect("a home directory");
        std::fs::write(home.join(".bash_profile"), "PS1='e2e$ '\n").expect("a .bash_profile");
        let mut child = Command::new(&binaries.ratd)
            .arg("--bundle")
            .arg(dir.path().join("bundle").join("server"))
            .args(["--listen", "127.0.0.1:0"])
            .env("NO_COLOR", "1")
            .env("HOME", &home)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("ratd starts");
        let log = Arc::new(Mutex::new(Vec::new()));
        let (addr_tx, addr_rx) = mpsc::channel();
        let stderr = child.stderr.take().expect("ratd's stderr");
        let lines = log.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                let line = strip_ansi(&line);
                if line.contains("ratd serving")
                    && let Some(addr) = serving_address(&line)
                {
                    let _ = addr_tx.send(addr);
                }
                lines.lock().expect("the log").push(line);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(30);
        let addr = loop {
            if let Ok(addr) = addr_rx.recv_timeout(Duration::from_millis(100)) {
                break addr;
            }
            let exited = child.try_wait().expect("ratd's status");
            if exited.is_some() || Instant::now() > deadline {
                std::thread::sleep(Duration::from_millis(200));
                let log = log.lock().expect("the log").join("\n");
                let _ = child.kill();
                let _ = child.wait();
                panic!("ratd did not serve (exit: {exited:?}); its log:\n{log}");
            }
        };
        Ratd {
            tenant,
            addr,
            dir,
            child,
            log,
            tmux,
        }
    }

    /// `HOST:PORT`, as rat's `--server` takes it.
    pub fn server(&self) -> String {
        self.addr.to_string()
    }

    /// `https://HOST:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("https://{}/mcp", self.addr)
    }

    /// The root of the bundle (`server/`, `clients/NAME/`).
    pub fn bundle(&self) -> PathBuf {
        self.dir.path().join("bundle")
    }

    /// The directory of client `name`: `BUNDLE/clients/NAME`.
    pub fn client_dir(&self, name: &str) -> PathBuf {
        self.bundle().join("clients").join(name)
    }

    /// A scratch directory of this ratd's, removed with it (the bundle is in `bundle/`, the
    /// terminals' home in `home/`).
    pub fn scratch(&self) -> &Path {
        self.dir.path()
    }

    /// The home directory of ratd and its terminals: `SCRATCH/home`, holding only a
    /// `.bash_profile` setting the prompt to `e2e$ `.
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// ratd's log so far (colours removed).
    pub fn log(&self) -> String {
        self.log.lock().expect("the log").join("\n")
    }

    /// Whether the tmux server of this ratd's tenant answers.
    pub fn tmux_running(&self) -> bool {
        tmux_server_running(&self.tmux.socket)
    }

    /// Stops ratd with SIGTERM and returns how it exited (SIGKILL after 20 seconds).
    pub fn stop(&mut self) -> ExitStatus {
        if let Some(status) = self.child.try_wait().expect("ratd's status") {
            return status;
        }
        let pid = Pid::from_raw(i32::try_from(self.child.id()).expect("a pid"));
        let _ = signal::kill(pid, Signal::SIGTERM);
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().expect("ratd's status") {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                return self.child.wait().expect("ratd's status");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Ratd {
    fn drop(&mut self) {
        let status = self.stop();
        if std::thread::panicking() {
            eprintln!(
                "--- ratd of tenant {} ({status}), its log:\n{}\n---",
                self.tenant,
                self.log()
            );
        }
        // self.tmux kills the tmux server next, whatever ratd did.
    }
}

/// The address in ratd's `ratd serving ... address=127.0.0.1:PORT ...` line.
fn serving_address(line: &str) -> Option<SocketAddr> {
    let rest = &line[line.find("address=")? + "address=".len()..];
    let rest = rest.trim_start_matches('"');
    let end = rest
        .find(|c: char| c == '"' || c == ',' || c.is_whitespace())
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// A port free on 127.0.0.1 right now (bound, then released).
pub fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|listener| listener.local_addr())
        .expect("a free port")
        .port()
}

/// Waits until `addr` accepts a TCP connection (10 seconds at most).
///
/// # Panics
/// When it does not.
pub fn wait_for_port(addr: SocketAddr) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_err() {
        assert!(Instant::now() < deadline, "nothing listens on {addr}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_serving_address_is_read_from_ratds_log_line() {
        let line = strip_ansi(
            "\x1b[2m2026-11-30T12:12:19Z\x1b[0m \x1b[32m INFO\x1b[0m ratd serving \x1b[3mversion\x1b[0m\x1b[2m=\x1b[0m\"0.1.0\" \x1b[3maddress\x1b[0m\x1b[2m=\x1b[0m\"127.0.0.1:41659\" read_budget=64 KiB",
        );
        assert_eq!(
            line,
            "2026-11-30T12:12:19Z  INFO ratd serving version=\"0.1.0\" address=\"127.0.0.1:41659\" read_budget=64 KiB"
        );
        assert_eq!(
            serving_address(&line),
            Some("127.0.0.1:41659".parse().expect("an address"))
        );
        assert_eq!(
            serving_address("ratd serving address=127.0.0.1:7281 x=1"),
            Some("127.0.0.1:7281".parse().expect("an address"))
        );
        assert_eq!(serving_address("ratd serving"), None);
    }
}
