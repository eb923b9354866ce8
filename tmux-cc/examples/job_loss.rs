//! Measures how often tmux itself loses the output of a fast-exiting pane, with the two plain
//! methods that [`Client::start_job`] does not use (docs/design/jobs.md):
//!
//! ```sh
//! cargo run -p tmux-cc --example job_loss          # the tmux first on PATH
//! ```
//! `seq 1 5000` in a new window, 100 times, (a) with `remain-on-exit` and a capture of the
//! history once the pane is dead, (b) with `pipe-pane` attached as soon as the window exists.
//! Prints how many runs lost lines with each. It runs its own tmux server on a private socket
//! (`tmux-cc-job-loss-PID`), stopped at the end. Jobs themselves lose none: the test
//! `jobs::fast_exit_output_complete_100_runs` checks every run.

use std::time::{Duration, Instant};

use tmux_cc::{Client, ClientOptions, Command, NewSession, Server};

#[tokio::main]
async fn main() {
    let socket = format!("tmux-cc-job-loss-{}", std::process::id());
    let server = Server::start(&socket).await.expect("start a tmux server");
    let client = server
        .connect(ClientOptions::default())
        .await
        .expect("attach a control client");
    measure(&server, &client).await;
    server.stop().await.expect("stop the tmux server");
}

async fn measure(server: &Server, c: &Client) {
    c.new_session(&NewSession::new("j")).await.unwrap();
    c.run(&Command::new("set-option").args(["-g", "history-limit", "10000"]))
        .await
        .unwrap();
    c.run(&Command::new("set-option").args(["-g", "-w", "remain-on-exit", "on"]))
        .await
        .unwrap();
    c.run(&Command::new("set-option").args(["-g", "-w", "remain-on-exit-format", ""]))
        .await
        .ok();
    let server = nix::unistd::Pid::from_raw(server.pid() as i32);
    let wanted: Vec<String> = (1..=5000).map(|i| i.to_string()).collect();
    let (mut capture_lost, mut pipe_lost) = (0, 0);
    for run in 0..100 {
        let out = std::env::temp_dir().join(format!("tcc-measure-{}-{run}", std::process::id()));
        let line = c
            .run(
                &Command::new("new-window")
                    .args(["-d", "-P", "-F", "#{pane_id}", "-t", "=j:", "--"])
                    .args(["sh", "-c", "seq 1 5000"]),
            )
            .await
            .unwrap();
        let pane = String::from_utf8_lossy(&line[0]).into_owned();
        // (b) attached as soon as the window exists: fails when the pane already ended.
        let piped = c
            .run(
                &Command::new("pipe-pane")
                    .args(["-O", "-t", &pane])
                    .arg(format!("cat > '{}'", out.display())),
            )
            .await
            .is_ok();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let status = c
                .run(&Command::new("display-message").args([
                    "-p",
                    "-t",
                    &pane,
                    "#{pane_dead}:#{pane_dead_status}",
                ]))
                .await
                .unwrap()
                .first()
                .map(|l| String::from_utf8_lossy(l).into_owned())
                .unwrap_or_default();
            if status == "1:0" {
                break;
            }
            if status.starts_with("1:") {
                let _ = nix::sys::signal::kill(server, nix::sys::signal::Signal::SIGCHLD);
            }
            assert!(Instant::now() < deadline, "run {run}: {status}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        let lines = c
            .run(&Command::new("capture-pane").args(["-p", "-S", "-", "-E", "-", "-t", &pane]))
            .await
            .unwrap();
        let got: Vec<String> = lines
            .iter()
            .map(|l| String::from_utf8_lossy(l).trim_end().to_string())
            .filter(|l| !l.is_empty())
            .collect();
        if got != wanted {
            capture_lost += 1;
        }
        c.run(&Command::new("kill-pane").args(["-t", &pane]))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(50)).await;
        let text = std::fs::read_to_string(&out).unwrap_or_default();
        let _ = std::fs::remove_file(&out);
        let piped_lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
        if !piped || piped_lines != wanted {
            pipe_lost += 1;
        }
    }
    println!(
        "tmux {}: remain-on-exit + capture lost lines in {capture_lost}/100 runs; pipe-pane after new-window in {pipe_lost}/100",
        c.version()
    );
}
