//! Every typed operation against a real tmux server, each test ending with the guard that the
//! global window-size was never set to manual (tmux 3.3a segfaults on the next new-window).

use std::time::Duration;

use crate::common::{Env, env, env_with_session, global_window_size, wait_capture};
use tmux_cc::{
    Capture, Command, Difference, Error, NewSession, NewWindow, OptionScope, PaneId, WindowId,
    send_literal,
};

pub(crate) fn sh(script: &str) -> Vec<Vec<u8>> {
    vec![b"sh".to_vec(), b"-c".to_vec(), script.as_bytes().to_vec()]
}

/// That the server holds no buffer: an operation that passed text through one removed it.
pub(crate) async fn assert_no_buffers(env: &Env) {
    let buffers = env
        .client
        .run(&Command::new("list-buffers").args(["-F", "#{buffer_name}"]))
        .await
        .unwrap();
    assert_eq!(buffers, Vec::<Vec<u8>>::new());
}

/// The guard every test ends with.
pub(crate) async fn check_window_size(env: &Env) {
    // Creating a session and a window after everything else proves the server still stands.
    let probe = format!("probe{}", std::process::id());
    env.client
        .new_session(&NewSession::new(&probe))
        .await
        .unwrap();
    env.client
        .new_window(&NewWindow::new(format!("={probe}:")))
        .await
        .unwrap();
    assert_eq!(global_window_size(&env.guard.socket), "latest");
    assert_eq!(env.server.exit(), None);
}

#[tokio::test]
async fn sessions_are_created_sized_checked_and_killed() {
    let env = env("sessions").await;
    let dir = tempfile::tempdir().unwrap();
    let mut new = NewSession::new("work");
    new.window_name = Some("first".into());
    new.start_directory = Some(dir.path().to_path_buf());
    new.environment = vec![("TCC_VAR".into(), b"value with spaces $HOME".to_vec())];
    new.command = sh("printf '[%s]' \"$TCC_VAR\"; pwd; exec sleep 1000");
    let created = env.client.new_session(&new).await.unwrap();
    assert!(env.client.has_session("=work").await.unwrap());
    assert!(!env.client.has_session("=wor").await.unwrap());
    let windows = env.client.list_windows("=work", &[]).await.unwrap();
    assert_eq!(windows.len(), 1);
    let w = &windows[0];
    assert_eq!(
        (w.session, w.window, w.pane),
        (created.session, created.window, created.pane)
    );
    assert_eq!((w.name.as_str(), w.width, w.height), ("first", 200, 24));
    let screen = wait_capture(&env.client, "=work:", &Capture::default(), |s| {
        s.contains('/')
    })
    .await;
    let real = std::fs::canonicalize(dir.path()).unwrap();
    assert_eq!(
        screen.lines().next().unwrap(),
        format!("[value with spaces $HOME]{}", real.display())
    );
    let err = env
        .client
        .new_session(&NewSession::new("work"))
        .await
        .unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"tmux refused `new-session`: duplicate session: work");
    env.client.kill_session("=work").await.unwrap();
    assert!(!env.client.has_session("=work").await.unwrap());
    let err = env.client.kill_session("=work").await.unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"tmux refused `kill-session`: can't find session: work");
    check_window_size(&env).await;
}

#[tokio::test]
async fn windows_are_created_sized_listed_and_killed() {
    let env = env_with_session("windows", "work").await;
    let dir = tempfile::tempdir().unwrap();
    let mut new = NewWindow::new("=work:");
    new.name = Some("build".into());
    new.start_directory = Some(dir.path().to_path_buf());
    new.environment = vec![
        ("TCC_A".into(), b"1".to_vec()),
        ("TCC_B".into(), b"two".to_vec()),
    ];
    new.command = sh("echo \"$TCC_A-$TCC_B\"; exec sleep 1000");
    let created = env.client.new_window(&new).await.unwrap();
    assert_eq!(created.index, 1);
    let screen = wait_capture(&env.client, "=work:=build", &Capture::default(), |s| {
        s.contains("1-two")
    })
    .await;
    assert_eq!(screen.lines().next(), Some("1-two"));
    // The shell echoed, then execs sleep: the list is read once it has (10 s at most).
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let windows = loop {
        let windows = env
            .client
            .list_windows("=work", &["@tcc_mark"])
            .await
            .unwrap();
        let sleeping = windows
            .iter()
            .any(|w| w.name == "build" && w.current_command == "sleep");
        if sleeping || std::time::Instant::now() > deadline {
            break windows;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(windows.len(), 2);
    let w = windows.iter().find(|w| w.name == "build").unwrap();
    assert_eq!(
        (w.window, w.index, w.pane),
        (created.window, 1, created.pane)
    );
    assert_eq!((w.width, w.height), (200, 24));
    assert_eq!(w.current_command, "sleep");
    assert_eq!(w.current_path, std::fs::canonicalize(dir.path()).unwrap());
    assert_eq!(w.user_option("@tcc_mark"), Some(""));
    assert!(!w.dead && !w.in_mode && !w.alternate_on && w.cursor_visible);
    assert!(w.pane_pid > 0);
    assert!(w.activity > 1_700_000_000);
    // The window was sized alone: its window-size is manual, the global one untouched.
    assert_eq!(
        env.client
            .option(
                OptionScope::Window(&created.window.to_string()),
                "window-size"
            )
            .await
            .unwrap(),
        Some(b"manual".to_vec())
    );
    env.client.kill_window("=work:=build").await.unwrap();
    let names: Vec<String> = env
        .client
        .list_windows("=work", &[])
        .await
        .unwrap()
        .into_iter()
        .map(|w| w.name)
        .collect();
    assert_eq!(names.len(), 1);
    assert!(!names.contains(&"build".to_string()));
    let err = env.client.kill_window("=work:=build").await.unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"tmux refused `kill-window`: can't find window: build");
    let err = env.client.list_windows("=nosuch", &[]).await.unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"tmux refused `list-windows`: can't find session: nosuch");
    let err = env
        .client
        .list_windows("=work", &["bad}"])
        .await
        .unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"refused: a user option name is '@' then ASCII letters, digits, '_' or '-'");
    check_window_size(&env).await;
}

#[tokio::test]
async fn window_states_are_read_from_the_list() {
    let env = env_with_session("states", "s").await;
    env.client
        .set_option(OptionScope::GlobalWindow, "remain-on-exit", b"on")
        .await
        .unwrap();
    let mut full = NewWindow::new("=s:");
    full.name = Some("full".into());
    // Alternate screen on, cursor hidden, cursor moved to row 5 column 10 (1-based 6;11).
    full.command = sh("printf '\\033[?1049h\\033[?25l\\033[6;11H'; exec sleep 1000");
    env.client.new_window(&full).await.unwrap();
    let mut dead = NewWindow::new("=s:");
    dead.name = Some("dead".into());
    dead.command = sh("seq 1 100; exit 3");
    env.client.new_window(&dead).await.unwrap();
    let find = |windows: &[tmux_cc::WindowInfo], name: &str| {
        windows.iter().find(|w| w.name == name).unwrap().clone()
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let (full, dead) = loop {
        let windows = env.client.list_windows("=s", &[]).await.unwrap();
        let (f, d) = (find(&windows, "full"), find(&windows, "dead"));
        // tmux marks a pane dead when its pty ends, and knows the status only once it has
        // reaped the child: wait for both. A child exiting at once can leave a zombie that
        // tmux 3.3a never reaps (~1 in 5 here): its SIGCHLD is lost while libutempter's own
        // handler is in place (tmux issues 311 and 2679); any SIGCHLD makes tmux reap it.
        if d.dead && d.dead_status.is_none() {
            let server = nix::unistd::Pid::from_raw(env.server.pid() as i32);
            nix::sys::signal::kill(server, nix::sys::signal::Signal::SIGCHLD).unwrap();
        }
        let dead_done = d.dead && d.dead_status.is_some();
        if (f.alternate_on && f.cursor_x == 10 && dead_done) || std::time::Instant::now() > deadline
        {
            break (f, d);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(full.alternate_on);
    assert!(!full.cursor_visible);
    assert_eq!((full.cursor_x, full.cursor_y), (10, 5));
    assert!(dead.dead);
    assert_eq!(dead.dead_status, Some(3));
    assert!(dead.history_size >= 76, "{}", dead.history_size);
    // Copy mode shows in the list, and leave_modes leaves it.
    env.client
        .run(&Command::new("copy-mode").args(["-t", "=s:=dead"]))
        .await
        .unwrap();
    let windows = env.client.list_windows("=s", &[]).await.unwrap();
    assert!(find(&windows, "dead").in_mode);
    env.client.leave_modes("=s:=dead").await.unwrap();
    let windows = env.client.list_windows("=s", &[]).await.unwrap();
    assert!(!find(&windows, "dead").in_mode);
    // Leaving when in no mode is no error.
    env.client.leave_modes("=s:=dead").await.unwrap();
    check_window_size(&env).await;
}

#[tokio::test]
async fn captures_screen_history_joined_and_alternate_as_bytes() {
    let env = env("captures").await;
    let mut new = NewSession::new("c");
    // 300 rows of history, then a line of 250 'x' (wraps at 200), then a non-UTF-8 byte.
    new.command = sh(
        "seq 1 300; printf '%0250d\\n' 0 | tr 0 x; printf 'caf\\303\\251 \\377end\\n'; exec sleep 1000",
    );
    env.client.new_session(&new).await.unwrap();
    let screen = wait_capture(&env.client, "=c:", &Capture::default(), |s| {
        s.contains("end")
    })
    .await;
    let rows: Vec<&str> = screen.lines().collect();
    assert_eq!(rows.len(), 24);
    let raw = env
        .client
        .capture("=c:", &Capture::default())
        .await
        .unwrap();
    // Exactly what a forked capture-pane prints.
    let forked = std::process::Command::new("tmux")
        .args(["-L", &env.guard.socket, "capture-pane", "-p", "-t", "=c:"])
        .output()
        .unwrap()
        .stdout;
    assert_eq!(raw, forked);
    // UTF-8 is kept whole (the client runs with -u); tmux's grid holds no invalid byte.
    assert!(
        raw.windows(6).any(|w| w == "café ".as_bytes()),
        "UTF-8 kept"
    );
    // Unjoined, the long line is two rows; joined, one.
    let x200 = "x".repeat(200);
    assert!(rows.contains(&x200.as_str()));
    let joined = env
        .client
        .capture(
            "=c:",
            &Capture {
                join: true,
                ..Capture::default()
            },
        )
        .await
        .unwrap();
    let joined = String::from_utf8_lossy(&joined).into_owned();
    if env.client.features().has(Difference::JoinedCapturePadded) {
        // tmux 3.2 pads a joined row with its blank cells: the row, then spaces.
        assert!(
            joined
                .lines()
                .any(|l| l.len() > 250 && l.trim_end_matches(' ') == "x".repeat(250))
        );
    } else {
        assert!(joined.lines().any(|l| l == "x".repeat(250)));
    }
    // History rows: -S -100 gives 100 rows above the screen, then the screen.
    let history = env
        .client
        .capture(
            "=c:",
            &Capture {
                history: Some(100),
                ..Capture::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&history).lines().count(), 124);
    // The alternate screen: what shows is the full-screen program; -a gives the normal screen.
    env.client
        .run(&send_literal("=c:", b"unused"))
        .await
        .unwrap();
    let mut alt = NewWindow::new("=c:");
    alt.name = Some("alt".into());
    alt.command = sh("echo normal-text; printf '\\033[?1049h'; echo alt-text; exec sleep 1000");
    env.client.new_window(&alt).await.unwrap();
    let shown = wait_capture(&env.client, "=c:=alt", &Capture::default(), |s| {
        s.contains("alt-text")
    })
    .await;
    assert!(!shown.contains("normal-text"));
    let saved = env
        .client
        .capture(
            "=c:=alt",
            &Capture {
                alternate: true,
                ..Capture::default()
            },
        )
        .await
        .unwrap();
    let saved = String::from_utf8_lossy(&saved).into_owned();
    assert!(
        saved.contains("normal-text") && !saved.contains("alt-text"),
        "{saved}"
    );
    let err = env
        .client
        .capture(
            "=c:0",
            &Capture {
                alternate: true,
                ..Capture::default()
            },
        )
        .await
        .unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"tmux refused `capture-pane`: no alternate screen");
    let err = env
        .client
        .capture("=c:=nosuch", &Capture::default())
        .await
        .unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"tmux refused `capture-pane`: can't find window: nosuch");
    check_window_size(&env).await;
}

#[tokio::test]
async fn options_are_set_read_and_unset() {
    let env = env_with_session("options", "o").await;
    env.client
        .set_option(OptionScope::Server, "escape-time", b"7")
        .await
        .unwrap();
    assert_eq!(
        env.client
            .option(OptionScope::Server, "escape-time")
            .await
            .unwrap(),
        Some(b"7".to_vec())
    );
    env.client
        .set_option(OptionScope::GlobalSession, "history-limit", b"12345")
        .await
        .unwrap();
    assert_eq!(
        env.client
            .option(OptionScope::GlobalSession, "history-limit")
            .await
            .unwrap(),
        Some(b"12345".to_vec())
    );
    // A pane user option holding what a shell or tmux's parser would otherwise change, and
    // every `$` form tmux 3.4 escapes in a stored value (row OptionDollarEscaped) or not.
    let value = b"-a 'b' \"c\" $HOME \\$HOME ${x} $_y $1 $$ $ ~ #{pane_id} ;";
    env.client
        .set_pane_option("=o:", "@tcc_v", value)
        .await
        .unwrap();
    assert_eq!(
        env.client.pane_option("=o:", "@tcc_v").await.unwrap(),
        Some(value.to_vec())
    );
    let windows = env.client.list_windows("=o", &["@tcc_v"]).await.unwrap();
    assert_eq!(windows[0].user_option("@tcc_v").unwrap().as_bytes(), value);
    env.client
        .set_pane_option("=o:", "@tcc_e", b"")
        .await
        .unwrap();
    assert_eq!(
        env.client.pane_option("=o:", "@tcc_e").await.unwrap(),
        Some(Vec::new())
    );
    env.client
        .unset_option(OptionScope::Pane("=o:"), "@tcc_v")
        .await
        .unwrap();
    assert_eq!(env.client.pane_option("=o:", "@tcc_v").await.unwrap(), None);
    let err = env
        .client
        .set_option(OptionScope::GlobalWindow, "window-size", b"manual")
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Refused(_)));
    insta::assert_snapshot!(err.to_string(), @"refused: window-size manual is never set globally (tmux 3.3a segfaults on the next new-window, issue 4849): resize each window instead");
    let err = env
        .client
        .set_option(OptionScope::Server, "no-such-option", b"1")
        .await
        .unwrap_err();
    insta::assert_snapshot!(err.to_string(), @"tmux refused `set-option`: invalid option: no-such-option");
    check_window_size(&env).await;
}

#[test]
fn ids_display_as_tmux_prints_them() {
    assert_eq!(WindowId(3).to_string(), "@3");
    assert_eq!(PaneId(7).to_string(), "%7");
}
