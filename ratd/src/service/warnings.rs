//! The startup warnings of a deployment handing agents more than the user ratd runs as
//! (`docs/design/bundles.md`, What ratd warns of at start), and the bundle's expiry (warned at
//! startup and every 24 hours when less than a year remains: `bundles.md`, Expiry).
//!
//! - Root: every agent, and whoever holds a client key, is root; the likely mistake is a
//!   service missing its `User=`.
//! - A bundle its user can replace, the key aside (ratd owns it): an agent could put a bundle
//!   of its own in place, whose clients ratd would let in at its next start. Writable means for
//!   the process, by `access(2)` (groups and ACLs included): the certificates, and every
//!   directory above them up to `/`, through which a file or directory below can be renamed and
//!   another put in its place, for the path as given and for the targets of its links. Not
//!   checked as root, which can write anything.
//!
//! Warnings rather than refusals: root is a choice for a machine given whole to the agents, and
//! ratd started by hand runs as a user owning its bundle.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use std::time::SystemTime;

use std::sync::Arc;
use std::time::Duration;

use nix::unistd::{AccessFlags, access};
use rat_core::terminals::TerminalCheck;
use rat_wire::mtls;
use tokio_util::sync::CancellationToken;

use super::status::{Degradations, Status};

/// How often the bundle's expiry is checked again while ratd serves.
pub const EXPIRY_EVERY: Duration = Duration::from_secs(24 * 60 * 60);

/// The certificates of a bundle's server directory that a replacement would swap: the CA and
/// the server certificate (the key aside: ratd reads it, and owns it).
pub const CERTIFICATES: [&str; 2] = [mtls::CA_FILE, "server.crt"];

/// Whether this process runs as root (effective uid 0).
pub fn running_as_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// The log line of the root warning.
pub const ROOT_WARNING: &str = "running as root: every agent, and whoever holds a client key of \
the bundle, is root; run ratd as a user of its own (User= in its systemd unit)";

/// The paths through which the user of this process could replace the certificates of the
/// bundle in `bundle_dir`: each certificate and each directory above it, for the path as given
/// and for the targets of its links, that `access(2)` finds writable. In the order met, without
/// repeats; empty when none is, or when running as root (not checked: root writes anything).
pub fn replaceable_bundle_paths(bundle_dir: &Path) -> Vec<PathBuf> {
    if running_as_root() {
        return Vec::new();
    }
    writable(&paths_to_check(bundle_dir))
}

/// Of `paths`, those `access(2)` finds writable for this process (`W_OK`: its real user and
/// groups, ACLs included), in order.
pub fn writable(paths: &[PathBuf]) -> Vec<PathBuf> {
    paths
        .iter()
        .filter(|path| access(path.as_path(), AccessFlags::W_OK).is_ok())
        .cloned()
        .collect()
}

/// Every path whose write access lets the certificates of `bundle_dir` be replaced: each
/// certificate, then each directory above it up to `/`, for the path as given (made absolute,
/// `..` kept as written) and, for each of those that is a symbolic link, for its target, link
/// after link (at most 40, as the kernel follows). In the order met, without repeats.
pub fn paths_to_check(bundle_dir: &Path) -> Vec<PathBuf> {
    let mut seen = BTreeSet::new();
    let mut order = Vec::new();
    for certificate in CERTIFICATES {
        walk(
            &absolute(&bundle_dir.join(certificate)),
            0,
            &mut seen,
            &mut order,
        );
    }
    order
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Adds `path` and each directory above it, then the targets of the links among them.
fn walk(path: &Path, depth: usize, seen: &mut BTreeSet<PathBuf>, order: &mut Vec<PathBuf>) {
    const MAX_LINKS: usize = 40;
    let mut links = Vec::new();
    let mut current = Some(path);
    while let Some(p) = current {
        if seen.insert(p.to_path_buf()) {
            order.push(p.to_path_buf());
        }
        if std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink()) {
            links.push(p.to_path_buf());
        }
        current = p.parent();
    }
    if depth >= MAX_LINKS {
        return;
    }
    for link in links {
        let Ok(target) = std::fs::read_link(&link) else {
            continue;
        };
        let parent = link.parent().unwrap_or(Path::new("/"));
        // The path below the link, now reached through its target.
        let rest = path.strip_prefix(&link).unwrap_or(Path::new(""));
        let target = normalize(&parent.join(target)).join(rest);
        walk(&target, depth + 1, seen, order);
    }
}

/// `path` with `.` dropped and `..` taking out the component before it, lexically: the target
/// of a link is read relative to the directory of the link, which is already resolved here.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// The log line of the writable-bundle warning, naming `paths`.
pub fn replaceable_bundle_warning(paths: &[PathBuf]) -> String {
    let names = paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    format!(
        "the bundle can be replaced by the user ratd runs as, through {names}: an agent could put \
a bundle of its own in place, whose clients ratd would let in at its next start; make the \
certificates and every directory above them writable by root only"
    )
}

/// The expiry warning at `now` for a bundle valid until `not_after`, `None` when a year or
/// more remains (rat-core's words, the same on every side).
pub fn expiry_warning(not_after: SystemTime, now: SystemTime) -> Option<String> {
    mtls::expiry_warning(not_after, now)
}

/// Whole days left at `now` for a bundle valid until `not_after` when less than a year
/// remains (0 once expired), `None` otherwise: the degradation of the status line.
pub fn expiry_days(not_after: SystemTime, now: SystemTime) -> Option<u64> {
    if !mtls::needs_expiry_warning(not_after, now) {
        return None;
    }
    Some(mtls::validity_left(not_after, now).map_or(0, |left| left.as_secs() / 86_400))
}

/// File descriptors ratd keeps for itself beyond its connections: the listeners, the tmux
/// control connection and its children's pipes, the bundle and the files read or written.
pub const OWN_FILES: u64 = 256;

/// Raises the soft limit on open files to the hard one (what systemd's LimitNOFILE= or
/// `ulimit -Hn` allow), for the connections `--max-connections` lets in: the soft limit is
/// 1024 on most systems. Returns the soft limit now; for ratd's `main` (a library embedding
/// ratd keeps its own limits).
pub fn raise_file_limit() -> Option<u64> {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).ok()?;
    if soft < hard && setrlimit(Resource::RLIMIT_NOFILE, hard, hard).is_ok() {
        return Some(hard);
    }
    Some(soft)
}

/// The open file limit against what ratd may hold: `max_connections` clients, plus `bound`
/// connections in their TLS handshake (`serve::MAX_HANDSHAKING`, given by the caller), plus
/// [`OWN_FILES`]. Returns the bound of connections in their handshake: `bound`, or what the
/// limit leaves once the clients and ratd's own files are counted (so that a flood of strangers
/// is shed before accepting fails, rather than after). Warns when the limit can not hold the
/// clients (beyond it, accepting fails until connections close), or leaves fewer than 1024
/// places for handshakes (a small flood then closes a certificate holder's before it ends);
/// logs at info level the bound it lowered otherwise.
pub fn file_limit(max_connections: usize, bound: usize) -> usize {
    use nix::sys::resource::{Resource, getrlimit};
    let Ok((soft, _)) = getrlimit(Resource::RLIMIT_NOFILE) else {
        return bound;
    };
    let clients = max_connections as u64 + OWN_FILES;
    let needed = clients + bound as u64;
    let (left, max_handshaking) = handshake_bound(soft, max_connections, bound);
    if soft >= needed {
        return bound;
    }
    if soft < clients {
        tracing::warn!(
            file_limit = soft,
            max_connections,
            max_handshaking,
            "the open file limit is below --max-connections plus ratd's own files ({clients}): connections beyond fail to be accepted; it should also hold {bound} connections in their TLS handshake ({needed} in all); raise LimitNOFILE= in the systemd unit, or lower --max-connections"
        );
    } else if left < MIN_HANDSHAKING {
        tracing::warn!(
            file_limit = soft,
            max_connections,
            max_handshaking,
            "the open file limit leaves {left} files for connections in their TLS handshake once --max-connections and ratd's own files are counted, against {bound} ({needed} in all): a small flood of connections that never finish their handshake closes a certificate holder's before it ends; raise LimitNOFILE= in the systemd unit, or lower --max-connections"
        );
    } else {
        tracing::info!(
            file_limit = soft,
            max_connections,
            max_handshaking,
            "at most {max_handshaking} connections wait in their TLS handshake at once, the most the open file limit leaves after --max-connections and ratd's own files (a limit of {needed} would leave {bound}); past that, the oldest waiting is closed"
        );
    }
    max_handshaking
}

/// What the open file limit `soft` leaves connections in their TLS handshake once
/// `max_connections` and [`OWN_FILES`] are counted, and the bound ratd keeps for them:
/// [`MIN_HANDSHAKING`] to `most`.
fn handshake_bound(soft: u64, max_connections: usize, most: usize) -> (usize, usize) {
    let left = soft.saturating_sub(max_connections as u64 + OWN_FILES);
    let left = usize::try_from(left).unwrap_or(usize::MAX);
    (left, left.clamp(MIN_HANDSHAKING.min(most), most))
}

/// The fewest places kept for connections in their TLS handshake, whatever the open file limit
/// (beyond the limit, accepting fails and the oldest stranger is closed to make room).
const MIN_HANDSHAKING: usize = 1024;

/// The warnings of startup step 1, logged at warning level once the bundle loaded: root, or a
/// bundle its user can replace (naming the paths), and the expiry when less than a year
/// remains. Returns what they degrade, for the status line.
pub fn startup(bundle_dir: &Path, not_after: SystemTime) -> Degradations {
    let mut degradations = Degradations::default();
    if running_as_root() {
        tracing::warn!("{ROOT_WARNING}");
        degradations.root = true;
    } else {
        let paths = replaceable_bundle_paths(bundle_dir);
        if !paths.is_empty() {
            tracing::warn!("{}", replaceable_bundle_warning(&paths));
            degradations.bundle_writable = true;
        }
    }
    let now = SystemTime::now();
    if let Some(warning) = expiry_warning(not_after, now) {
        tracing::warn!("{warning}");
    }
    degradations.expiry_days = expiry_days(not_after, now);
    degradations
}

/// Logs the startup check of the terminals (Startup step 3): info when everything holds, else
/// a warning naming what startup files defeat (and what `PROMPT_COMMAND` became), or why the
/// check could not run. Returns the labels of the status line.
pub fn terminal_check(check: &TerminalCheck) -> Vec<&'static str> {
    let labels = check.warnings();
    let duration_ms = check.duration.as_millis() as u64;
    if labels.is_empty() {
        tracing::info!(
            duration_ms,
            "terminals checked: bracketed paste holds, prompts and exit statuses are recorded"
        );
    } else if !check.ran {
        tracing::warn!(
            duration_ms,
            problem = check.problem.as_deref().unwrap_or("unknown"),
            "the check of the terminals could not run, taken as nothing holding: agents are told to send one line at a time, and no exit status; a startup file of bash blocking blocks every terminal too"
        );
    } else {
        tracing::warn!(
            duration_ms,
            defeated = labels.join(", "),
            prompt_command = check.prompt_command.as_deref().unwrap_or(""),
            "bash startup files defeat rat in the terminals (PROMPT_COMMAND assigned rather than added to, a command run before rat's hook, bracketed paste turned off): the terminals work, agents are told what does not hold"
        );
    }
    labels
}

/// Checks the bundle's expiry every [`EXPIRY_EVERY`] until `stop` fires: warns when less than a
/// year remains, and updates the status line's days.
pub async fn expiry_every_day(not_after: SystemTime, status: Arc<Status>, stop: CancellationToken) {
    let mut every = tokio::time::interval(EXPIRY_EVERY);
    every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // The first tick is at once: startup warned already.
    every.tick().await;
    loop {
        tokio::select! {
            _ = every.tick() => {}
            () = stop.cancelled() => return,
        }
        let now = SystemTime::now();
        if let Some(warning) = expiry_warning(not_after, now) {
            tracing::warn!("{warning}");
        }
        status.degrade(|d| d.expiry_days = expiry_days(not_after, now));
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    #[test]
    fn the_file_limit_bounds_connections_in_their_handshake() {
        // systemd's default hard limit: room for everything.
        assert_eq!(handshake_bound(524_288, 4096, 16384), (519_936, 16384));
        // 20,000 files: 4096 clients and 256 of ratd's own leave 15,648 for handshakes.
        assert_eq!(handshake_bound(20_000, 4096, 16384), (15_648, 15_648));
        // Too few: 1024 kept, the accept failing beyond (the oldest closed then).
        assert_eq!(handshake_bound(4096, 4096, 16384), (0, 1024));
        assert_eq!(handshake_bound(5000, 4096, 16384), (648, 1024));
    }

    #[test]
    fn every_directory_up_to_the_root_is_checked_for_the_path_and_its_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("real/server")).unwrap();
        std::fs::create_dir_all(root.join("etc")).unwrap();
        std::os::unix::fs::symlink("../real/server", root.join("etc/server")).unwrap();
        let mut expected = vec![
            root.join("etc/server/ca.crt"),
            root.join("etc/server"),
            root.join("etc"),
        ];
        expected.extend(root.ancestors().map(Path::to_path_buf));
        expected.extend([
            root.join("real/server/ca.crt"),
            root.join("real/server"),
            root.join("real"),
            root.join("etc/server/server.crt"),
            root.join("real/server/server.crt"),
        ]);
        assert_eq!(paths_to_check(&root.join("etc/server")), expected);
    }

    #[test]
    fn a_link_in_a_link_is_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("c")).unwrap();
        std::os::unix::fs::symlink(root.join("c"), root.join("b")).unwrap();
        std::os::unix::fs::symlink("b", root.join("a")).unwrap();
        let paths = paths_to_check(&root.join("a"));
        assert!(paths.contains(&root.join("a/ca.crt")));
        assert!(paths.contains(&root.join("b/ca.crt")));
        assert!(paths.contains(&root.join("c/ca.crt")));
        assert!(paths.contains(&root.join("c")));
    }

    #[test]
    fn writable_follows_access() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("ca.crt");
        std::fs::write(&file, "x").unwrap();
        let missing = dir.path().join("missing");
        // Our own file (or any, as root) is writable; a missing path is not.
        assert_eq!(writable(&[file.clone(), missing]), vec![file]);
    }

    #[test]
    fn the_warnings_name_what_to_do() {
        insta::assert_snapshot!(
            replaceable_bundle_warning(&[PathBuf::from("/etc/rat/prod/server"), PathBuf::from("/etc/rat/prod/server/ca.crt")]),
            @"the bundle can be replaced by the user ratd runs as, through /etc/rat/prod/server, /etc/rat/prod/server/ca.crt: an agent could put a bundle of its own in place, whose clients ratd would let in at its next start; make the certificates and every directory above them writable by root only"
        );
    }

    #[test]
    fn expiry_days_count_whole_days_under_a_year() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(2_000_000_000);
        let day = Duration::from_secs(86_400);
        assert_eq!(expiry_days(now + 400 * day, now), None);
        assert_eq!(expiry_days(now + 365 * day, now), None);
        assert_eq!(
            expiry_days(now + 212 * day + Duration::from_secs(7), now),
            Some(212)
        );
        assert_eq!(expiry_days(now + Duration::from_secs(60), now), Some(0));
        assert_eq!(expiry_days(now - day, now), Some(0));
    }
}
