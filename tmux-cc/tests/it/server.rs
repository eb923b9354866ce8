//! The tmux server child: start, readiness, socket in use, stale socket, exit, stop, and the
//! errors of its own.

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use crate::common::{self, guard, socket_name};
use tmux_cc::{Error, ExitKind, Server, ServerOptions, StopStep, TmuxVersion};

/// Where tmux puts its sockets: `$TMUX_TMPDIR/tmux-UID` (`/tmp` when unset).
fn socket_dir() -> std::path::PathBuf {
    let dir = std::env::var_os("TMUX_TMPDIR").unwrap_or_else(|| "/tmp".into());
    std::path::Path::new(&dir).join(format!("tmux-{}", nix::unistd::getuid()))
}

#[tokio::test]
async fn starts_and_answers_with_its_own_pid_then_stops_by_kill_server() {
    let (server, _guard) = common::server("start").await;
    let out = std::process::Command::new("tmux")
        .args([
            "-L",
            server.socket_name(),
            "display-message",
            "-p",
            "#{pid}",
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        server.pid().to_string()
    );
    assert!(server.version().is_supported());
    assert_eq!(server.exit(), None);
    let socket_path = server.socket_path().to_path_buf();
    assert_eq!(socket_path, socket_dir().join(server.socket_name()));
    assert!(socket_path.exists());
    let report = server.stop().await.unwrap();
    // tmux 3.3a leaves its socket file: tmux-cc removes it.
    assert!(!socket_path.exists());
    assert_eq!(report.step, StopStep::KillServer);
    assert_eq!(report.exit.status, ExitKind::Code(0));
    assert!(report.exit.requested);
    assert_eq!(report.step.to_string(), "stopped by kill-server");
    // Stopping again tells it had already exited, with the same exit.
    let again = server.stop().await.unwrap();
    assert_eq!(again.step, StopStep::AlreadyExited);
    assert_eq!(again.exit, report.exit);
    assert_eq!(again.step.to_string(), "had already exited");
}

#[tokio::test]
async fn a_second_server_on_the_same_socket_names_the_first_ones_pid() {
    let (first, _guard) = common::server("inuse").await;
    let err = Server::start(first.socket_name()).await.unwrap_err();
    match &err {
        Error::ServerSocketInUse { socket, pid } => {
            assert_eq!(socket, first.socket_name());
            assert_eq!(*pid, first.pid());
        }
        other => panic!("expected ServerSocketInUse, got {other:?}"),
    }
    let message = err
        .to_string()
        .replace(&first.pid().to_string(), "PID")
        .replace(first.socket_name(), "SOCKET");
    insta::assert_snapshot!(message, @r#"another tmux server (pid PID) already serves socket "SOCKET": stop it, or choose another socket name"#);
    // The first one is untouched, its socket file too.
    assert_eq!(first.exit(), None);
    assert!(first.socket_path().exists());
    let out = std::process::Command::new("tmux")
        .args(["-L", first.socket_name(), "display-message", "-p", "#{pid}"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        first.pid().to_string()
    );
}

#[tokio::test]
async fn a_stale_socket_is_taken_over() {
    let guard = guard("stale");
    let socket = guard.socket.clone();
    let dir = socket_dir();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    let path = dir.join(&socket);
    // A socket file nobody listens on, as a crashed server leaves it.
    drop(std::os::unix::net::UnixListener::bind(&path).unwrap());
    assert!(std::fs::metadata(&path).is_ok());
    let server = Server::start(&socket).await.unwrap();
    assert_eq!(server.exit(), None);
    assert_eq!(server.stop().await.unwrap().step, StopStep::KillServer);
}

#[tokio::test]
async fn bad_socket_names_are_refused_before_anything_starts() {
    let mut messages = Vec::new();
    for name in ["", "a/b", ".hidden", "sp ace", &"x".repeat(65)] {
        let err = Server::start(name).await.unwrap_err();
        assert!(
            matches!(err, Error::BadSocketName { .. }),
            "{name:?}: {err:?}"
        );
        messages.push(err.to_string());
    }
    insta::assert_snapshot!(messages.join("\n"), @r#"
    bad tmux socket name "": it is empty
    bad tmux socket name "a/b": use only ASCII letters, digits, '-', '_' and '.'
    bad tmux socket name ".hidden": it may not start with '.'
    bad tmux socket name "sp ace": use only ASCII letters, digits, '-', '_' and '.'
    bad tmux socket name "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx": it is longer than 64 bytes
    "#);
}

#[tokio::test]
async fn tmux_missing_is_its_own_error() {
    let mut options = ServerOptions::new(socket_name("missing"));
    options.tmux = "/nonexistent/bin/tmux".into();
    let err = Server::start_with(options).await.unwrap_err();
    assert!(matches!(err, Error::TmuxMissing { .. }), "{err:?}");
    insta::assert_snapshot!(err.to_string(), @"tmux was not found (looked for /nonexistent/bin/tmux): install tmux 3.2 or later");
}

/// A program answering `-V` as an old tmux would: only the version check runs it. 3.1 is
/// the newest release older than [`TmuxVersion::MIN`] (3.2: 3.2a is the oldest release the
/// version matrix runs).
#[tokio::test]
async fn tmux_older_than_3_2_is_refused() {
    assert_eq!(TmuxVersion::MIN, (3, 2));
    let dir = tempfile::tempdir().unwrap();
    let fake = dir.path().join("tmux");
    std::fs::write(&fake, "#!/bin/sh\necho 'tmux 3.1c'\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut options = ServerOptions::new(socket_name("old"));
    options.tmux = fake;
    let err = Server::start_with(options).await.unwrap_err();
    assert!(matches!(err, Error::TmuxTooOld { .. }), "{err:?}");
    insta::assert_snapshot!(err.to_string(), @r#"tmux 3.1 is too old: tmux-cc needs tmux 3.2 or later (`tmux -V` said "tmux 3.1c"): install a newer tmux from your distribution, or build a release from https://github.com/tmux/tmux/releases"#);
}

#[tokio::test]
async fn every_waiter_sees_the_same_death() {
    let (server, _guard) = common::server("death").await;
    let waiters: Vec<_> = (0..3)
        .map(|_| {
            let server = server.clone();
            tokio::spawn(async move { server.wait().await })
        })
        .collect();
    // A death nobody asked for: SIGKILL from outside.
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(server.pid() as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    for waiter in waiters {
        let exit = tokio::time::timeout(Duration::from_secs(20), waiter)
            .await
            .expect("the waiter returns")
            .unwrap();
        assert_eq!(exit.status, ExitKind::Signal(9));
        assert!(!exit.requested);
        assert_eq!(exit.to_string(), "killed by signal 9 (SIGKILL), unasked");
    }
    // A waiter arriving later gets the same answer at once.
    assert_eq!(server.wait().await.status, ExitKind::Signal(9));
    assert_eq!(server.stop().await.unwrap().step, StopStep::AlreadyExited);
}

fn short_graces(socket: &str) -> ServerOptions {
    let mut options = ServerOptions::new(socket);
    options.kill_server_grace = Duration::from_millis(300);
    options.terminate_grace = Duration::from_millis(300);
    options
}

#[tokio::test]
async fn stop_tells_when_sigterm_was_needed() {
    let guard = guard("term");
    let socket = guard.socket.clone();
    let mut options = short_graces(&socket);
    // As long as tmux takes to exit on SIGTERM on a loaded machine: only SIGKILL's step
    // would tell otherwise.
    options.terminate_grace = Duration::from_secs(20);
    let server = Server::start_with(options).await.unwrap();
    // Without its socket file, kill-server cannot reach the server: SIGTERM must.
    std::fs::remove_file(socket_dir().join(&socket)).unwrap();
    let report = server.stop().await.unwrap();
    assert_eq!(report.step, StopStep::Terminate);
    assert!(report.exit.requested);
    assert_eq!(
        report.step.to_string(),
        "stopped by SIGTERM after kill-server did not stop it"
    );
}

#[tokio::test]
async fn stop_tells_when_sigkill_was_needed() {
    let guard = guard("kill");
    let socket = guard.socket.clone();
    let server = Server::start_with(short_graces(&socket)).await.unwrap();
    // A stopped process handles neither kill-server nor SIGTERM; SIGKILL still ends it.
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(server.pid() as i32),
        nix::sys::signal::Signal::SIGSTOP,
    )
    .unwrap();
    let report = server.stop().await.unwrap();
    assert_eq!(report.step, StopStep::Kill);
    assert_eq!(report.exit.status, ExitKind::Signal(9));
    assert_eq!(
        report.step.to_string(),
        "stopped by SIGKILL after kill-server and SIGTERM did not stop it"
    );
}

/// The server and the control client die with the process that started them (no orphaned
/// `tmux -C` to wedge the server, tmux issue 5444). This test runs itself again as that
/// owner process, then kills it with SIGKILL.
#[tokio::test]
async fn children_die_with_their_owner() {
    if let Ok(socket) = std::env::var("TMUX_CC_OWNER_SOCKET") {
        // The owner: start both, tell their pids, then wait to be killed.
        let server = Server::start(&socket).await.unwrap();
        let client = server.connect(Default::default()).await.unwrap();
        println!("PIDS {} {}", server.pid(), client.pid());
        tokio::time::sleep(Duration::from_secs(60)).await;
        return;
    }
    let guard = guard("owner");
    let socket = guard.socket.clone();
    let mut owner = tokio::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "server::children_die_with_their_owner",
            "--nocapture",
        ])
        .env("TMUX_CC_OWNER_SOCKET", &socket)
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut stdout = tokio::io::BufReader::new(owner.stdout.take().unwrap());
    let mut pids = None;
    let mut line = String::new();
    while tokio::time::timeout(
        Duration::from_secs(10),
        tokio::io::AsyncBufReadExt::read_line(&mut stdout, &mut line),
    )
    .await
    .unwrap()
    .unwrap()
        > 0
    {
        if let Some(rest) = line.trim().strip_prefix("PIDS ") {
            let mut it = rest.split(' ').map(|p| p.parse::<i32>().unwrap());
            pids = Some((it.next().unwrap(), it.next().unwrap()));
            break;
        }
        line.clear();
    }
    let (server_pid, client_pid) = pids.expect("the owner printed the pids");
    let alive = |pid: i32| {
        std::path::Path::new(&format!("/proc/{pid}")).exists()
            && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .map(|s| s.contains(") Z "))
                .unwrap_or(true)
    };
    assert!(alive(server_pid) && alive(client_pid));
    owner.start_kill().unwrap();
    owner.wait().await.unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while (alive(server_pid) || alive(client_pid)) && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!alive(client_pid), "the control client outlived its owner");
    assert!(!alive(server_pid), "the server outlived its owner");
}

/// A program that answers `-V` as tmux 3.3a and does `rest` for anything else: only to see
/// how a server that fails to start is reported.
fn fake_tmux(dir: &std::path::Path, rest: &str) -> std::path::PathBuf {
    let fake = dir.join("tmux");
    std::fs::write(
        &fake,
        format!("#!/bin/sh\nif [ \"$1\" = -V ]; then echo 'tmux 3.3a'; exit 0; fi\n{rest}\n"),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    fake
}

#[tokio::test]
async fn a_server_exiting_at_start_is_reported_with_its_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let socket = socket_name("exits");
    let mut options = ServerOptions::new(&socket);
    options.tmux = fake_tmux(dir.path(), "echo 'cannot start' >&2; exit 3");
    let err = Server::start_with(options).await.unwrap_err();
    let message = err.to_string().replace(&socket, "SOCKET");
    assert!(matches!(err, Error::ServerExitedAtStart { .. }), "{err:?}");
    insta::assert_snapshot!(message, @r#"the tmux server for socket "SOCKET" exited while starting (exited with status 3): cannot start"#);
}

#[tokio::test]
async fn a_server_that_never_answers_is_killed_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = ServerOptions::new(socket_name("silent"));
    options.tmux = fake_tmux(dir.path(), "exec sleep 30");
    options.ready_timeout = Duration::from_millis(300);
    let err = Server::start_with(options).await.unwrap_err();
    let Error::ServerNotReady { pid, waited, .. } = err else {
        panic!("expected ServerNotReady, got {err:?}");
    };
    assert_eq!(waited, Duration::from_millis(300));
    // The child was killed (and is reaped by tokio).
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.contains(") Z "))
        .unwrap_or(false)
    {
        assert!(std::time::Instant::now() < deadline, "the child still runs");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// A server that dies, and whose socket another server takes before tmux-cc reaps the dead one
/// (a tmux command racing a crash): the new socket file is left alone, even where the file
/// system gives it the inode number of the old one (ext4 often does; the unit test of
/// `SocketFile` covers that case whatever the file system). The runtime of this test has one
/// thread, blocked here while the socket is replaced: the reap can only come after.
#[tokio::test]
async fn a_socket_taken_over_before_the_reap_is_left_to_its_new_server() {
    let (server, _guard) = common::server("takenover").await;
    let path = server.socket_path().to_path_buf();
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(server.pid() as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    // Dead (a zombie until reaped, its socket closed) once /proc tells so.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !std::fs::read_to_string(format!("/proc/{}/stat", server.pid()))
        .map(|s| s.contains(") Z "))
        .unwrap_or(true)
    {
        assert!(
            std::time::Instant::now() < deadline,
            "the server still runs"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    // As a new server does with a stale socket: delete it, then listen at the same path.
    std::fs::remove_file(&path).unwrap();
    let _listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
    assert_eq!(server.wait().await.status, ExitKind::Signal(9));
    assert!(path.exists(), "the new server's socket file was removed");
}

/// A server slow to answer (1.5 s here; a loaded machine can take that long to start tmux) is
/// waited for: the default readiness deadline leaves a loaded machine room.
#[tokio::test]
async fn a_server_slow_to_start_is_waited_for() {
    let real = std::env::var_os("PATH")
        .and_then(|path| {
            std::env::split_paths(&path)
                .map(|dir| dir.join("tmux"))
                .find(|candidate| candidate.is_file())
        })
        .expect("tmux in PATH");
    let dir = tempfile::tempdir().unwrap();
    let guard = guard("slow");
    let socket = guard.socket.clone();
    let mut options = ServerOptions::new(&socket);
    // Only the server (-D) is slow; the clients asking for its pid answer at once.
    options.tmux = fake_tmux(
        dir.path(),
        &format!(
            "case \" $* \" in *\" -D \"*) sleep 1.5;; esac\nexec '{}' \"$@\"",
            real.display()
        ),
    );
    let started = std::time::Instant::now();
    let server = Server::start_with(options).await.unwrap();
    assert!(started.elapsed() >= Duration::from_millis(1500));
    assert_eq!(server.exit(), None);
    assert_eq!(server.stop().await.unwrap().step, StopStep::KillServer);
}
