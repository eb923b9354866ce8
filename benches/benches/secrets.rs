//! What masking secrets costs (`docs/design/secrets.md`): read_window of a full screen and of
//! 10000 rows of history (about 2 MB, cut to the 64 KiB read budget), masking on against off,
//! side by side in one run: two controllers on private sockets, one masking, one showing,
//! their windows holding the same output. Then the masking alone, on the same texts.
//!
//! The rows printed hold what wakes the rules' prefilter without being secrets (the words
//! token, secret and password, URLs, `sk-` inside words, `ghp_` too short, `eyJ` alone), in
//! every row: a worst case for the checks, not a quiet text.
//!
//! Prints, after criterion's groups, medians of interleaved calls (on, off, on, off...), which
//! a changing load moves less: `cargo bench -p benches --bench secrets`
//! (`SECRETS_BENCH_ROUNDS`, 300 by default).

use std::time::{Duration, Instant};

use criterion::Criterion;
use rat_core::secrets::{How, Mode, Vault};
use rat_core::terminals::{
    Controller, ControllerConfig, ReadWindow, SendText, Terminals, WaitWindow,
};
use tmux_cc::test_support::{SocketGuard, socket_name};

/// 10000 rows of 160 to 190 characters, then the screen's rows, and a prompt.
const FILL: &str = "awk 'BEGIN{for(i=0;i<10024;i++) printf \"%05d   Compiling crate-%d v0.%d.0 \
(/work/src/crate-%d) token refresh: ok, secret_santa.txt, password reset via \
https://example.com/r?id=%d disk-usage ghp_short eyJ %s\\n\", i, i, i%7, i, i, \
substr(\"abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz\", 1, i%30)}'";

async fn start(mode: Mode, home: &std::path::Path) -> (SocketGuard, Controller, Terminals) {
    let tenant = socket_name("bsecrets");
    let guard = SocketGuard::named(format!("rat-{tenant}"));
    let mut config = ControllerConfig::new(tenant);
    config.home = home.to_path_buf();
    config.secrets = mode;
    let controller = Controller::start(config).await.expect("controller");
    let session = controller.session("bench");
    session.list_windows().await;
    session
        .wait_window(
            WaitWindow {
                window: "main".into(),
                max_seconds: Some(20),
            },
            Default::default(),
        )
        .await;
    let sent = session
        .send_text(SendText {
            window: "main".into(),
            text: FILL.into(),
            enter: true,
            wait_seconds: 0,
        })
        .await;
    assert!(!sent.outcome.is_error(), "{}", sent.text);
    let done = session
        .wait_window(
            WaitWindow {
                window: "main".into(),
                max_seconds: Some(50),
            },
            Default::default(),
        )
        .await;
    assert!(done.text.contains("finished"), "{}", done.text);
    (guard, controller, session)
}

fn read(rows: u32) -> ReadWindow {
    ReadWindow {
        window: "main".into(),
        scrollback_rows: Some(rows),
        output_rows: None,
    }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let home = tempfile::tempdir().expect("home");
    std::fs::write(home.path().join(".bash_profile"), "PS1='$ '\n").unwrap();
    let (_g1, on_controller, on) = runtime.block_on(start(Mode::Mask, home.path()));
    let (_g2, off_controller, off) = runtime.block_on(start(Mode::Show, home.path()));
    let screen = runtime.block_on(off.read_window(read(0))).text;
    let history = runtime.block_on(off.read_window(read(10_000))).text;
    assert!(
        history.contains("history cut at its start"),
        "{}",
        &history[..200]
    );
    let masked = runtime.block_on(on.read_window(read(10_000))).text;
    assert_eq!(masked, history, "nothing to mask: the same answer");

    let mut criterion = Criterion::default()
        .sample_size(60)
        .measurement_time(Duration::from_secs(6))
        .configure_from_args();
    let mut group = criterion.benchmark_group("read_window");
    for (name, rows) in [("full screen", 0), ("10000 rows", 10_000)] {
        for (mode, session) in [("masked", &on), ("shown", &off)] {
            group.bench_function(format!("{name}, {mode}"), |b| {
                b.to_async(&runtime)
                    .iter(|| session.read_window(read(rows)))
            });
        }
    }
    group.finish();

    // The masking alone: a screen's text, and the end of 2 MB a 64 KiB cut keeps.
    let vault = Vault::default();
    let all = {
        let body = screen.split_once('\n').map_or(&*screen, |(_, b)| b);
        body.repeat(2_000_000 / body.len().max(1))
    };
    let how = How {
        open_end: true,
        ..How::default()
    };
    let mut group = criterion.benchmark_group("mask");
    group.bench_function("a full screen's text", |b| {
        b.iter(|| vault.mask(&screen, how).len())
    });
    group.bench_function("the end of 2 MB kept by a 64 KiB cut", |b| {
        b.iter(|| vault.mask_end(&all, 64 * 1024, how).len())
    });
    group.bench_function("all of 2 MB", |b| b.iter(|| vault.mask(&all, how).len()));
    group.finish();

    // Interleaved: on, off, on, off.
    let rounds: usize = std::env::var("SECRETS_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    for (name, rows, n) in [
        ("full screen", 0, rounds),
        ("10000 rows", 10_000, rounds / 5),
    ] {
        let (mut masked, mut shown) = (Vec::new(), Vec::new());
        for _ in 0..n {
            for (times, session) in [(&mut masked, &on), (&mut shown, &off)] {
                let start = Instant::now();
                runtime.block_on(session.read_window(read(rows)));
                times.push(start.elapsed());
            }
        }
        let (m, s) = (median(masked), median(shown));
        println!(
            "read_window, {name}, interleaved ({n} each): masked p50 {:.3} ms, shown p50 {:.3} ms, \
             {:+.3} ms ({:+.1}%)",
            m.as_secs_f64() * 1e3,
            s.as_secs_f64() * 1e3,
            (m.as_secs_f64() - s.as_secs_f64()) * 1e3,
            (m.as_secs_f64() / s.as_secs_f64() - 1.0) * 100.0
        );
    }
    runtime.block_on(async {
        let _ = on_controller.stop().await;
        let _ = off_controller.stop().await;
    });
}
