//! Non-ASCII text survives from input to capture whatever ratd's locale: a service often has
//! none (systemd), where tmux would print `_` for non-ASCII without `-u`, and bash would mangle
//! its input without `LC_ALL=C.UTF-8` in the terminals.

mod terminals_common;

use rat_core::terminals::{ReadWindow, SendText};
use terminals_common::*;

const LOCALE: [&str; 3] = ["LANG", "LC_ALL", "LC_CTYPE"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn non_ascii_survives_with_the_locale_unset() {
    if LOCALE.iter().any(|v| std::env::var_os(v).is_some()) {
        // Run this very test again in a process with the locale unset, as ratd under systemd.
        let mut child = std::process::Command::new(std::env::current_exe().unwrap());
        child.args([
            "--exact",
            "non_ascii_survives_with_the_locale_unset",
            "--nocapture",
        ]);
        for v in LOCALE {
            child.env_remove(v);
        }
        let status = child.status().expect("the test binary runs again");
        assert!(status.success(), "with the locale unset: {status}");
        return;
    }
    let f = start(Home::default()).await;
    f.controller.check_terminals().await;
    f.ready("s", "main").await;
    let done = f
        .run(
            "s",
            "main",
            "mkdir -p café && cd café && echo 'é ✓ 漢字 🐀'",
        )
        .await;
    assert!(done.text.contains("exit status 0"), "{}", done.text);
    let t = f.controller.session("s");
    let screen = t
        .read_window(ReadWindow {
            window: "main".into(),
            scrollback_rows: None,
        })
        .await;
    assert_eq!(
        screen.text,
        "$ mkdir -p café && cd café && echo 'é ✓ 漢字 🐀'\né ✓ 漢字 🐀\n$"
    );
    let list = t.list_windows().await;
    assert_eq!(
        f.redact(&list.text),
        "main: bash in ~/café, active Ns ago, last command exited with status 0 (Ns ago)"
    );
    // A text with them waits on the command line as sent.
    t.send_text(SendText {
        window: "main".into(),
        text: "printf '%s\\n' 'ü→漢'".into(),
        enter: false,
    })
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let screen = t
        .read_window(ReadWindow {
            window: "main".into(),
            scrollback_rows: None,
        })
        .await;
    assert!(
        screen.text.ends_with("$ printf '%s\\n' 'ü→漢'"),
        "{}",
        screen.text
    );
}
