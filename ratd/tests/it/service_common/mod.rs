//! What the service tests share: the real ratd binary started on a fresh bundle (its own tenant,
//! so its own tmux socket, killed at the end even when the test fails), its stderr read line by
//! line, and rmcp's client over mutual TLS to the address it logged.
#![allow(dead_code, unreachable_pub, unused_imports)]

use std::io::{BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use rmcp::RoleClient;
use rmcp::model::{CallToolRequestParams, ClientConfig};
use rmcp::service::{RunningService, ServiceExt};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

pub use crate::common::{Bundle, SocketGuard, tmux_server_pid, unique_tenant};

/// A ratd binary running on a bundle of its own; killed (and its tmux server) when dropped.
pub struct Daemon {
    pub bundle: Bundle,
    pub child: Child,
    pub guard: SocketGuard,
    pub lines: mpsc::Receiver<String>,
    /// Every stderr line read so far.
    pub seen: Vec<String>,
    pub addr: Option<SocketAddr>,
    /// The terminals' `HOME` unless `configure` sets another: empty, so that no startup file of
    /// the user running the tests runs (a slow one delays the startup check; a login shell
    /// killed in the middle of one can leave a lock that stalls every later one, as root's
    /// `pyenv init` does here for 60 s).
    pub home: tempfile::TempDir,
}

impl Daemon {
    /// `ratd --bundle B --listen 127.0.0.1:0 ARGS`, with `configure` applied to the command
    /// (environment, stderr; `HOME` is an empty directory of the daemon's until it sets
    /// another), on a fresh tenant with clients alice and bob. Stderr is piped
    /// unless `configure` set it; `stderr` then is the reader of what ratd writes.
    pub fn spawn_with(
        args: &[&str],
        configure: impl FnOnce(&mut Command) -> Box<dyn Read + Send>,
    ) -> Daemon {
        let tenant = unique_tenant();
        let bundle = Bundle::generate(&tenant, &["alice", "bob"]);
        Self::spawn_on(bundle, args, configure)
    }

    /// As [`Daemon::spawn_with`], on `bundle`.
    pub fn spawn_on(
        bundle: Bundle,
        args: &[&str],
        configure: impl FnOnce(&mut Command) -> Box<dyn Read + Send>,
    ) -> Daemon {
        let guard = SocketGuard::named(format!("rat-{}", bundle.tenant));
        let home = tempfile::tempdir().expect("a home for the terminals");
        let mut command = Command::new(env!("CARGO_BIN_EXE_ratd"));
        command
            .arg("--bundle")
            .arg(bundle.server_dir())
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .env("HOME", home.path())
            .env_remove("NOTIFY_SOCKET")
            .env_remove("JOURNAL_STREAM");
        let reader = configure(&mut command);
        let child = command.spawn().expect("ratd starts");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(reader).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Daemon {
            bundle,
            child,
            guard,
            lines,
            seen: Vec::new(),
            addr: None,
            home,
        }
    }

    /// Plain stderr piped.
    pub fn spawn(args: &[&str]) -> Daemon {
        Self::spawn_with(args, |command| {
            command.stderr(Stdio::piped());
            Box::new(PendingStderr)
        })
        .take_piped_stderr()
    }

    /// [`Daemon::spawn`] on `bundle` (a bundle a test made itself).
    pub fn spawn_piped_on(bundle: Bundle, args: &[&str]) -> Daemon {
        Self::spawn_on(bundle, args, |command| {
            command.stderr(Stdio::piped());
            Box::new(PendingStderr)
        })
        .take_piped_stderr()
    }

    /// Reads the stderr piped by the `configure` of [`Daemon::spawn_with`].
    pub fn with_piped_stderr(self) -> Daemon {
        self.take_piped_stderr()
    }

    fn take_piped_stderr(mut self) -> Daemon {
        let stderr = self.child.stderr.take().expect("stderr piped");
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        self.lines = lines;
        self
    }

    /// Waits (30 s at most) for a stderr line containing `needle`, keeping every line read.
    pub fn wait_for(&mut self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(needle) {
                        return line;
                    }
                }
                Err(_) => panic!(
                    "no line with {needle:?} within 30 s; lines: {:#?}",
                    self.seen
                ),
            }
        }
    }

    /// Waits for ratd to serve, and reads the address it logged.
    pub fn wait_serving(&mut self) -> SocketAddr {
        let line = self.wait_for("ratd serving");
        let start = line.find("address=").expect("the address is logged") + "address=".len();
        let rest = line[start..].trim_start_matches('"');
        let end = rest.find(['"', ' ']).unwrap_or(rest.len());
        let addr: SocketAddr = rest[..end].parse().expect("an address");
        self.addr = Some(addr);
        addr
    }

    pub fn pid(&self) -> nix::unistd::Pid {
        nix::unistd::Pid::from_raw(self.child.id() as i32)
    }

    pub fn signal(&self, signal: nix::sys::signal::Signal) {
        nix::sys::signal::kill(self.pid(), signal).expect("signal sent");
    }

    /// Waits (30 s at most) for ratd to exit, then reads the rest of its stderr.
    pub fn wait_exit(&mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "ratd still runs after 30 s: {:#?}",
                self.seen
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        while let Ok(line) = self.lines.recv_timeout(Duration::from_secs(2)) {
            self.seen.push(line);
        }
        status
    }

    /// rmcp's client for `client`, initialized.
    pub async fn mcp(&self, client: &str) -> RunningService<RoleClient, ClientConfig> {
        let http = crate::common::http_client(self.bundle.client_tls(client));
        let url = format!("https://{}/mcp", self.addr.expect("serving"));
        let transport = StreamableHttpClientTransport::with_client(
            http,
            StreamableHttpClientTransportConfig::with_uri(url),
        );
        ClientConfig::default()
            .serve(transport)
            .await
            .expect("initialize succeeds")
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A reader standing for stderr until the pipe is taken from the child.
struct PendingStderr;

impl Read for PendingStderr {
    fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
        Ok(0)
    }
}

/// Calls `tool` with `arguments` (a JSON object), returning the text and isError.
pub async fn call(
    client: &RunningService<RoleClient, ClientConfig>,
    tool: &str,
    arguments: serde_json::Value,
) -> (String, bool) {
    let serde_json::Value::Object(arguments) = arguments else {
        panic!("arguments are an object")
    };
    let result = client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
        .await
        .expect("the call gets a result");
    let text = result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("");
    (text, result.is_error == Some(true))
}
