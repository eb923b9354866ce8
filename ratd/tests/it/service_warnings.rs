//! The startup warnings from outside (`docs/design/bundles.md`, What ratd warns of at start):
//! root, and a
//! bundle its user can replace, checked by access(2) for the user ratd runs as: the real binary
//! run as `nobody` (setpriv) on a bundle that user owns.

use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};

use crate::service_common::{Bundle, Daemon, unique_tenant};
use nix::sys::signal::Signal;

/// Kills the tmux server of `nobody` on `socket` (its own socket directory) when dropped.
struct NobodyTmux {
    socket: String,
}

impl Drop for NobodyTmux {
    fn drop(&mut self) {
        let _ = Command::new("setpriv")
            .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups"])
            .args(["tmux", "-L", &self.socket, "kill-server"])
            .stderr(Stdio::null())
            .status();
    }
}

fn chown_nobody(path: &std::path::Path) {
    let status = Command::new("chown")
        .args(["-R", "nobody:nogroup"])
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

#[test]
fn a_bundle_its_user_can_replace_is_named_path_by_path() {
    // Switching to nobody takes root: the test checks what nobody can write.
    assert!(
        nix::unistd::geteuid().is_root(),
        "this test runs as root, to run ratd as nobody"
    );
    let tenant = unique_tenant();
    let bundle = Bundle::generate(&tenant, &["alice"]);
    let top = std::fs::canonicalize(bundle.dir.path()).unwrap();
    // nobody may pass through the temporary directory (root's, 0755), and owns the bundle.
    std::fs::set_permissions(&top, std::fs::Permissions::from_mode(0o755)).unwrap();
    chown_nobody(&bundle.root());
    let home = top.join("home");
    // The bundle's directory holds the terminals' home already (crate::common::Bundle).
    chown_nobody(&home);
    let _tmux = NobodyTmux {
        socket: format!("rat-{tenant}"),
    };
    let server_dir = bundle.server_dir();
    let mut ratd = Daemon::spawn_on(bundle, &[], |command| {
        let program = command.get_program().to_owned();
        let args: Vec<_> = command.get_args().map(|a| a.to_owned()).collect();
        let mut setpriv = Command::new("setpriv");
        setpriv
            .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups"])
            .arg(program)
            .args(args)
            .env("HOME", &home)
            .env_remove("NOTIFY_SOCKET")
            .env_remove("JOURNAL_STREAM")
            .stderr(Stdio::piped());
        *command = setpriv;
        Box::new(std::io::empty())
    })
    .with_piped_stderr();
    ratd.wait_serving();
    let warning = ratd
        .seen
        .iter()
        .find_map(|l| {
            l.find("the bundle can be replaced")
                .map(|at| l[at..].to_owned())
        })
        .unwrap_or_else(|| panic!("no warning: {:#?}", ratd.seen));
    let shown = warning.replace(&top.display().to_string(), "T");
    assert_eq!(
        shown,
        "the bundle can be replaced by the user ratd runs as, through T/b/server/ca.crt, \
T/b/server, T/b, /tmp, T/b/server/server.crt: an agent could put a bundle of its own in place, \
whose clients ratd would let in at its next start; make the certificates and every directory \
above them writable by root only",
        "{server_dir:?}"
    );
    assert!(
        ratd.seen
            .iter()
            .any(|l| l.contains("WARN") && l.contains("the bundle can be replaced")),
        "{:#?}",
        ratd.seen
    );
    assert!(
        !ratd.seen.iter().any(|l| l.contains("running as root")),
        "{:#?}",
        ratd.seen
    );
    ratd.signal(Signal::SIGTERM);
    let status = ratd.wait_exit();
    assert!(status.success(), "{status}: {:#?}", ratd.seen);
}

#[test]
fn root_is_warned_and_the_bundle_not_checked() {
    let mut ratd = Daemon::spawn(&[]);
    ratd.wait_serving();
    let root = nix::unistd::geteuid().is_root();
    let warned = ratd
        .seen
        .iter()
        .find_map(|l| l.find("running as root").map(|at| l[at..].to_owned()));
    if root {
        assert_eq!(
            warned.as_deref(),
            Some(
                "running as root: every agent, and whoever holds a client key of the bundle, is \
root; run ratd as a user of its own (User= in its systemd unit)"
            )
        );
        // Root writes anything: the bundle is not checked.
        assert!(
            !ratd
                .seen
                .iter()
                .any(|l| l.contains("the bundle can be replaced")),
            "{:#?}",
            ratd.seen
        );
    } else {
        assert_eq!(warned, None);
    }
    ratd.signal(Signal::SIGTERM);
    assert!(ratd.wait_exit().success());
}

#[test]
fn a_bundle_expiring_within_a_year_is_warned_and_shown_in_the_status() {
    let tenant = unique_tenant();
    let dir = tempfile::tempdir().unwrap();
    let day = std::time::Duration::from_secs(86_400);
    // Issued nearly ten years ago (its validity): about 200 days and a half left.
    let issued = std::time::SystemTime::now() - (10 * 365 - 200) * day - day / 2;
    rat_wire::mtls::generate_at(&tenant, &["alice"], &dir.path().join("b"), issued).unwrap();
    let bundle = Bundle {
        dir,
        tenant: tenant.clone(),
    };
    let not_after = rat_wire::mtls::load_server(&bundle.server_dir())
        .unwrap()
        .not_after();
    let days = not_after
        .duration_since(std::time::SystemTime::now())
        .unwrap()
        .as_secs()
        / 86_400;
    assert!((195..=210).contains(&days), "{days}");
    let notify_dir = tempfile::tempdir().unwrap();
    let path = notify_dir.path().join("notify");
    let socket = std::os::unix::net::UnixDatagram::bind(&path).unwrap();
    socket
        .set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut ratd = Daemon::spawn_on(bundle, &[], |command| {
        command
            .env("NOTIFY_SOCKET", &path)
            .env("HOME", home.path())
            .stderr(Stdio::piped());
        Box::new(std::io::empty())
    })
    .with_piped_stderr();
    let addr = ratd.wait_serving();
    let warning = ratd
        .seen
        .iter()
        .find_map(|l| l.find("the bundle expires on").map(|at| l[at..].to_owned()))
        .unwrap_or_else(|| panic!("no expiry warning: {:#?}", ratd.seen));
    assert_eq!(
        warning,
        format!(
            "the bundle expires on {} ({days} days left): less than a year left, and an expired \
bundle stops every client at once; generate a new one (rat-tool bundle generate) and deploy it \
to every side",
            rat_wire::mtls::format_time(not_after)
        )
    );
    let mut buf = [0u8; 4096];
    let n = socket.recv(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"READY=1\n");
    let n = socket.recv(&mut buf).unwrap();
    let root = if nix::unistd::geteuid().is_root() {
        "running as root, "
    } else {
        ""
    };
    assert_eq!(
        String::from_utf8_lossy(&buf[..n]),
        format!("STATUS=serving tenant {tenant} on {addr} · {root}bundle expires in {days} days\n")
    );
    ratd.signal(Signal::SIGTERM);
    assert!(ratd.wait_exit().success());
}
