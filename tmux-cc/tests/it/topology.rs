//! The server's shape (list_sessions, list_panes, list_windows_all, shape), typed
//! subscriptions (watch) and the Topology model, against a real tmux server built by each test.

use std::time::{Duration, Instant};

use crate::common::env;
use tmux_cc::parse::{Layout, LayoutPane};
use tmux_cc::{
    Client, Command, Delivery, Error, NewSession, NewWindow, Notification, PaneScope, SessionId,
    Shape, Topology, TopologyEvent, WatchScope, WindowPanes,
};

fn sleeper() -> Vec<Vec<u8>> {
    vec![b"sleep".to_vec(), b"1000".to_vec()]
}

async fn session(client: &Client, name: &str, width: u32, height: u32, dir: &std::path::Path) {
    let mut new = NewSession::new(name);
    new.width = width;
    new.height = height;
    new.command = sleeper();
    new.start_directory = Some(dir.to_path_buf());
    // Named: automatic-rename would name it after its command, `tmux` for a moment after the
    // fork, then `sleep`.
    new.window_name = Some("main".into());
    client.new_session(&new).await.unwrap();
}

/// `split-window -d -t TARGET [ARGS] sleep 1000` (no fork: through the control client).
async fn split(client: &Client, target: &str, args: &[&str]) {
    client
        .run(
            &Command::new("split-window")
                .args(["-d", "-t", target])
                .args(args)
                .args(["sleep", "1000"]),
        )
        .await
        .unwrap();
}

/// The geometry the layout gives each pane, in pane order.
fn layout_geometry(layout: &Layout) -> Vec<LayoutPane> {
    layout.panes().collect()
}

/// The geometry `list-panes` gives each pane of a window, as `LayoutPane`s.
fn listed_geometry(window: &WindowPanes) -> Vec<LayoutPane> {
    window
        .panes
        .iter()
        .map(|p| LayoutPane {
            id: p.id,
            width: p.width,
            height: p.height,
            x: p.left as i32,
            y: p.top as i32,
        })
        .collect()
}

#[tokio::test]
async fn sessions_windows_and_every_pane_are_listed_with_exact_geometry() {
    let env = env("topo-lists").await;
    let client = env.client.clone();
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().join("a dir");
    std::fs::create_dir(&dir).unwrap();
    session(&client, "alpha one", 80, 24, &dir).await;
    session(&client, "beta", 100, 30, &dir).await;
    split(&client, "=alpha one:", &["-h", "-c", dir.to_str().unwrap()]).await;
    split(
        &client,
        "=beta:",
        &["-v", "-l", "10", "-c", dir.to_str().unwrap()],
    )
    .await;
    let mut second = NewWindow::new("=beta:");
    second.name = Some("two words".into());
    second.command = sleeper();
    second.width = 90;
    second.height = 20;
    second.start_directory = Some(dir.clone());
    client.new_window(&second).await.unwrap();

    // A pane's path is empty, and its command `tmux`, for a moment after it starts (tmux
    // reads the terminal's foreground process group, which the child sets up after the fork,
    // before it runs sleep): wait until every pane has both.
    let deadline = Instant::now() + Duration::from_secs(10);
    while client
        .list_panes(&PaneScope::All)
        .await
        .unwrap()
        .iter()
        .any(|p| p.current_path.as_os_str().is_empty() || p.current_command != "sleep")
    {
        assert!(
            Instant::now() < deadline,
            "a pane without a path or its command after 10 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let sessions = client.list_sessions().await.unwrap();
    let names: Vec<_> = sessions
        .iter()
        .map(|s| (s.name.as_str(), s.windows, s.attached, s.group.clone()))
        .collect();
    // The service session is left out; sorted by name as tmux lists them.
    assert_eq!(names, [("alpha one", 1, 0, None), ("beta", 2, 0, None)]);
    assert!(sessions.iter().all(|s| s.created > 1_600_000_000));
    assert!(sessions[0].id < sessions[1].id);

    let windows = client.list_windows_all().await.unwrap();
    let summary: Vec<_> = windows
        .iter()
        .map(|w| {
            (
                w.session,
                w.index,
                w.name.as_str(),
                w.width,
                w.height,
                w.active,
                w.panes.len(),
            )
        })
        .collect();
    let (a, b) = (sessions[0].id, sessions[1].id);
    assert_eq!(
        summary,
        [
            (a, 0, "main", 80, 24, true, 2),
            (b, 0, "main", 100, 30, true, 2),
            (b, 1, "two words", 90, 20, false, 1),
        ]
    );
    // Exact geometry: a left-right split of 80 columns, a top-bottom split leaving 10 rows.
    let geometry: Vec<Vec<(i32, i32, u32, u32)>> = windows
        .iter()
        .map(|w| {
            listed_geometry(w)
                .iter()
                .map(|p| (p.x, p.y, p.width, p.height))
                .collect()
        })
        .collect();
    assert_eq!(
        geometry,
        [
            vec![(0, 0, 40, 24), (41, 0, 39, 24)],
            vec![(0, 0, 100, 19), (0, 20, 100, 10)],
            vec![(0, 0, 90, 20)],
        ]
    );
    for w in &windows {
        assert_eq!(listed_geometry(w), layout_geometry(&w.layout), "{w:?}");
        assert_eq!(w.layout, w.visible_layout);
        assert!(!w.zoomed);
        let active: Vec<_> = w.panes.iter().map(|p| p.active).collect();
        assert_eq!(active.iter().filter(|a| **a).count(), 1, "{w:?}");
        for p in &w.panes {
            assert_eq!(
                (p.session, p.window, p.window_index),
                (w.session, w.id, w.index)
            );
            assert_eq!(p.current_command, "sleep");
            assert_eq!(p.current_path, dir);
            assert!(!p.dead);
            assert_eq!(p.dead_status, None);
            assert!(p.pid > 1);
        }
        let indexes: Vec<_> = w.panes.iter().map(|p| p.index).collect();
        assert_eq!(indexes, (0..w.panes.len() as u32).collect::<Vec<_>>());
    }

    // list_panes agrees with the windows' panes, for all, a session and a window.
    let all: Vec<_> = windows.iter().flat_map(|w| w.panes.clone()).collect();
    let mut listed = client.list_panes(&PaneScope::All).await.unwrap();
    listed.sort_by_key(|p| (p.session, p.window_index, p.index));
    assert_eq!(listed, all);
    let beta = client
        .list_panes(&PaneScope::Session("=beta".into()))
        .await
        .unwrap();
    assert_eq!(beta, all[2..]);
    let one = client
        .list_panes(&PaneScope::Window(windows[0].id.to_string()))
        .await
        .unwrap();
    assert_eq!(one, all[..2]);
    match client
        .list_panes(&PaneScope::Window("@999".into()))
        .await
        .unwrap_err()
    {
        Error::Command { message, .. } => assert!(message.contains("@999"), "{message}"),
        other => panic!("expected a command error, got {other:?}"),
    }

    let shape = client.shape().await.unwrap();
    assert_eq!(shape, Shape { sessions, windows });
}

/// Polls `shape` against `topology` until they agree (both read again each time), at most
/// `within`; returns the last pair.
async fn settle(client: &Client, topology: &Topology, within: Duration) -> (Shape, Shape) {
    let deadline = Instant::now() + within;
    loop {
        let fresh = client.shape().await.unwrap();
        let model = topology.current();
        if fresh == model || Instant::now() > deadline {
            return (model, fresh);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_layout_change_of_another_session_arrives_with_the_new_layout() {
    let env = env("topo-layout").await;
    let client = env.client.clone();
    let dir = tempfile::tempdir().unwrap();
    session(&client, "other", 80, 24, dir.path()).await;
    let mut topology = Topology::start(&client).await.unwrap();
    let before = topology.current();
    assert_eq!(before.windows.len(), 1);
    let window = before.windows[0].id;
    let other: SessionId = before.sessions[0].id;
    // The notifications tmux sends for this split: no %layout-change (the window is not in
    // the client's own session).
    let mut notes = client.subscribe();
    split(&client, "=other:", &["-h"]).await;
    let event = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match topology.next_event().await {
                Some(TopologyEvent::LayoutChanged {
                    session,
                    window: w,
                    layout,
                    visible_layout,
                }) if w == window => return (session, layout, visible_layout),
                Some(_) => {}
                None => panic!("the topology ended"),
            }
        }
    })
    .await
    .expect("a LayoutChanged event within 5 s");
    let listed = client.list_windows_all().await.unwrap();
    assert_eq!(
        event,
        (other, listed[0].layout.clone(), listed[0].layout.clone())
    );
    let geometry: Vec<_> = event
        .1
        .panes()
        .map(|p| (p.x, p.y, p.width, p.height))
        .collect();
    assert_eq!(geometry, [(0, 0, 40, 24), (41, 0, 39, 24)]);
    while let Ok(Some(delivery)) = notes.try_recv() {
        let Delivery::Notification(note) = delivery else {
            panic!("the check needs every notification, and some were dropped: {delivery:?}");
        };
        assert!(
            !matches!(note, Notification::LayoutChange { window: w, .. } if w == window),
            "tmux sent a %layout-change for another session's window: {note:?}"
        );
    }
}

#[tokio::test]
async fn watch_values_come_with_their_ids_and_a_dropped_watch_stops() {
    let env = env("topo-watch").await;
    let client = env.client.clone();
    // The client's own session (the service session) has one window: an all-windows watch
    // reports it with its ids.
    let service_window = {
        let line = client
            .run(&Command::new("display-message").args([
                "-p",
                "-t",
                &format!("={}:", client.session_name()),
                "#{session_id} #{window_id}",
            ]))
            .await
            .unwrap();
        String::from_utf8(line[0].clone()).unwrap()
    };
    let (sid, wid) = service_window.split_once(' ').unwrap();
    let (sid, wid): (SessionId, tmux_cc::WindowId) = (sid.parse().unwrap(), wid.parse().unwrap());
    // A name of its own: automatic-rename could still be naming it after its command.
    client
        .run(&Command::new("rename-window").args(["-t", &wid.to_string(), "service"]))
        .await
        .unwrap();
    let mut windows = client
        .watch("wname", WatchScope::AllWindows, "#{window_name}!")
        .await
        .unwrap();
    let mut sessions = client
        .watch("snames", WatchScope::Session, "#{S:#{session_name}/}")
        .await
        .unwrap();
    let first = windows.recv_timeout(Duration::from_secs(3)).await.unwrap();
    let first = first.expect("the first value within 3 s");
    assert_eq!(
        (first.session, first.window, first.window_index, first.pane),
        (sid, Some(wid), Some(0), None)
    );
    assert_eq!(first.value, "service!");
    let all = sessions.recv_timeout(Duration::from_secs(3)).await.unwrap();
    let all = all.expect("the sessions' value within 3 s");
    assert_eq!((all.session, all.window, all.pane), (sid, None, None));
    assert_eq!(all.value, format!("{}/", client.session_name()));

    // Each change, a new value, checked against what tmux holds.
    for name in ["first name", "second: name", "third"] {
        client
            .run(&Command::new("rename-window").args(["-t", &wid.to_string(), name]))
            .await
            .unwrap();
        let value = windows.recv_timeout(Duration::from_secs(3)).await.unwrap();
        let value = value.expect("a value within 3 s of the rename");
        assert_eq!(value.value, format!("{name}!"));
        assert_eq!(value.window, Some(wid));
    }
    let dir = tempfile::tempdir().unwrap();
    session(&client, "zed", 80, 24, dir.path()).await;
    let value = sessions.recv_timeout(Duration::from_secs(3)).await.unwrap();
    assert_eq!(
        value.map(|v| v.value),
        Some(format!("{}/zed/", client.session_name()))
    );

    // Dropped: tmux sends no more values for it; the other watch still gets its own.
    drop(windows);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut notes = client.subscribe();
    client
        .run(&Command::new("rename-window").args(["-t", &wid.to_string(), "after"]))
        .await
        .unwrap();
    session(&client, "zz", 80, 24, dir.path()).await;
    let value = sessions.recv_timeout(Duration::from_secs(3)).await.unwrap();
    assert_eq!(
        value.map(|v| v.value),
        Some(format!("{}/zed/zz/", client.session_name()))
    );
    // One more check of tmux's timer after that one.
    tokio::time::sleep(Duration::from_millis(1200)).await;
    while let Ok(Some(delivery)) = notes.try_recv() {
        let Delivery::Notification(note) = delivery else {
            panic!("the check needs every notification, and some were dropped: {delivery:?}");
        };
        assert!(
            !matches!(&note, Notification::SubscriptionChanged { name, .. } if name == "wname"),
            "a value of a dropped watch: {note:?}"
        );
    }
    sessions.cancel().await.unwrap();

    assert!(matches!(
        client.watch("a:b", WatchScope::Session, "x").await,
        Err(Error::Refused(_))
    ));
    assert!(matches!(
        client.watch("ok", WatchScope::Session, "a\nb").await,
        Err(Error::Refused(_))
    ));
}

/// A tiny deterministic generator (xorshift64*), so a failing sequence can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[tokio::test]
async fn the_topology_equals_a_fresh_listing_after_each_change() {
    let env = env("topo-model").await;
    let client = env.client.clone();
    let dir = tempfile::tempdir().unwrap();
    session(&client, "s0", 80, 24, dir.path()).await;
    let mut topology = Topology::start(&client).await.unwrap();
    let seed = std::env::var("TOPOLOGY_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_1234_u64);
    let mut rng = Rng(seed);
    let mut created = 1;
    let mut log = Vec::new();
    for step in 0..16 {
        let shape = client.shape().await.unwrap();
        let pick_window = |rng: &mut Rng| {
            let w = &shape.windows[rng.below(shape.windows.len())];
            (
                w.id.to_string(),
                w.panes[rng.below(w.panes.len())].id.to_string(),
            )
        };
        let choice = if shape.windows.is_empty() {
            0
        } else {
            rng.below(6)
        };
        let what = match choice {
            0 => {
                let name = format!("s{created}");
                created += 1;
                session(&client, &name, 80, 24, dir.path()).await;
                format!("new session {name}")
            }
            1 => {
                let s = &shape.sessions[rng.below(shape.sessions.len())];
                let mut new = NewWindow::new(format!("{}:", s.id));
                new.command = sleeper();
                new.width = 60 + rng.below(40) as u32;
                client.new_window(&new).await.unwrap();
                format!("new window in {}", s.id)
            }
            2 | 3 => {
                let (_, pane) = pick_window(&mut rng);
                let flag = if rng.below(2) == 0 { "-h" } else { "-v" };
                // A window too small for one more pane answers `no space for new pane`.
                let reply = client
                    .reply(
                        &Command::new("split-window")
                            .args(["-d", "-t", &pane, flag, "sleep", "1000"]),
                    )
                    .await
                    .unwrap();
                format!("split {pane} {flag}: {}", reply.success)
            }
            4 => {
                let (_, pane) = pick_window(&mut rng);
                client
                    .run(&Command::new("kill-pane").args(["-t", &pane]))
                    .await
                    .unwrap();
                format!("kill-pane {pane}")
            }
            _ => {
                if rng.below(2) == 0 {
                    let s = &shape.sessions[rng.below(shape.sessions.len())];
                    let name = format!("renamed {step}");
                    client
                        .run(&Command::new("rename-session").args(["-t", &s.id.to_string(), &name]))
                        .await
                        .unwrap();
                    format!("rename session {} {name:?}", s.id)
                } else {
                    let (window, _) = pick_window(&mut rng);
                    let name = format!("w {step}");
                    client
                        .run(&Command::new("rename-window").args(["-t", &window, &name]))
                        .await
                        .unwrap();
                    format!("rename window {window} {name:?}")
                }
            }
        };
        log.push(what);
        let (model, fresh) = settle(&client, &topology, Duration::from_secs(5)).await;
        assert_eq!(model, fresh, "seed {seed:#x}, after {log:#?}");
    }
    // The events were produced as they happened; at least the sessions made are among them.
    let mut added = 0;
    while let Ok(Some(event)) =
        tokio::time::timeout(Duration::from_millis(10), topology.next_event()).await
    {
        if matches!(event, TopologyEvent::SessionAdded(_)) {
            added += 1;
        }
    }
    assert_eq!(added, created - 1, "seed {seed:#x}, after {log:#?}");
}

/// A client whose notification channel holds 2: a burst of 60 renames overflows it (a reader
/// of the same channel sees `Lagged`), and the topology, lagged too, lists again and still
/// ends equal to a fresh listing, and goes on following the server.
#[tokio::test]
async fn a_lagged_topology_lists_again() {
    let (server, _guard) = crate::common::server("topo-lag").await;
    let client = server
        .connect(tmux_cc::ClientOptions {
            command_timeout: Duration::from_secs(20),
            notification_capacity: 2,
            ..tmux_cc::ClientOptions::default()
        })
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    session(&client, "lag", 80, 24, dir.path()).await;
    let topology = Topology::start(&client).await.unwrap();
    let mut unread = client.subscribe();
    let renames: Vec<Command> = (0..60)
        .map(|i| Command::new("rename-window").args(["-t", "=lag:0", &format!("name {i}")]))
        .chain([Command::new("split-window").args(["-d", "-t", "=lag:", "sleep", "1000"])])
        .collect();
    for reply in client.input(&renames).await.unwrap() {
        assert!(reply.success);
    }
    let (model, fresh) = settle(&client, &topology, Duration::from_secs(5)).await;
    assert_eq!(model, fresh);
    assert_eq!(fresh.windows[0].name, "name 59");
    assert_eq!(fresh.windows[0].panes.len(), 2);
    assert!(matches!(
        unread.try_recv(),
        Ok(Some(Delivery::Lagged { .. }))
    ));
    // Still running after its lag: a change only its subscription shows.
    client
        .run(&Command::new("kill-pane").args(["-t", "=lag:0.1"]))
        .await
        .unwrap();
    let (model, fresh) = settle(&client, &topology, Duration::from_secs(5)).await;
    assert_eq!(model, fresh);
    assert_eq!(fresh.windows[0].panes.len(), 1);
}

/// A watch name in use on the client is refused (tmux would replace that subscription); once
/// the watch is cancelled or dropped, the name is free again.
#[tokio::test]
async fn a_watch_name_in_use_is_refused_until_that_watch_goes() {
    let env = env("watch-dup").await;
    let c = &env.client;
    let first = c
        .watch("mine", WatchScope::Session, "#{session_name}")
        .await
        .unwrap();
    let err = c
        .watch("mine", WatchScope::Session, "#{session_id}")
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "refused: a watch of that name is open on this client (tmux would replace it): cancel or drop it first, or pick another name"
    );
    // Another client has names of its own.
    let other = env.server.connect(Default::default()).await.unwrap();
    let theirs = other
        .watch("mine", WatchScope::Session, "#{session_id}")
        .await
        .unwrap();
    first.cancel().await.unwrap();
    let second = c
        .watch("mine", WatchScope::Session, "#{session_id}")
        .await
        .unwrap();
    drop(second);
    let deadline = Instant::now() + Duration::from_secs(5);
    let third = loop {
        // A dropped watch frees its name once tmux has dropped the subscription.
        match c.watch("mine", WatchScope::Session, "#{session_id}").await {
            Ok(watch) => break watch,
            Err(Error::Refused(_)) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            Err(e) => panic!("the name was not freed by the drop: {e}"),
        }
    };
    drop((third, theirs));
}

/// A topology read too late holds its capacity of events: the reader gets `Lagged` with how
/// many were dropped, then the newest ones, and the model is whole.
#[tokio::test]
async fn topology_events_are_bounded_and_a_lag_is_told() {
    let env = env("topo-lag").await;
    let client = env.client.clone();
    let dir = tempfile::tempdir().unwrap();
    session(&client, "s0", 80, 24, dir.path()).await;
    let mut topology = Topology::start_with(&client, 2).await.unwrap();
    for n in 1..=4 {
        session(&client, &format!("s{n}"), 80, 24, dir.path()).await;
    }
    // Every session in the model: every event is sent by now.
    let deadline = Instant::now() + Duration::from_secs(10);
    while topology.current().sessions.len() < 5 {
        assert!(
            Instant::now() < deadline,
            "the model never had the 5 sessions"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let first = topology.next_event().await.unwrap();
    let TopologyEvent::Lagged { missed } = first else {
        panic!("expected Lagged first, got {first:?}");
    };
    // 4 sessions added, each with its window: 8 events at least, 2 of them kept.
    assert!(missed >= 6, "missed {missed}");
    let mut kept = Vec::new();
    while let Ok(Some(event)) =
        tokio::time::timeout(Duration::from_millis(200), topology.next_event()).await
    {
        kept.push(event);
    }
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert!(
        kept.iter()
            .all(|e| !matches!(e, TopologyEvent::Lagged { .. })),
        "{kept:?}"
    );
}
