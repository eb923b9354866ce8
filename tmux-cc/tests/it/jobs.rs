//! Jobs and the blocking connection against a real tmux server: exact statuses, signals and
//! output of fast-exiting commands (repeated, each run checked against the ground truth),
//! per-job options read back, parallel jobs, and a `wait-for` that holds only its own
//! connection.

use std::time::{Duration, Instant};

use futures::future::join_all;
use tmux_cc::{Capture, Client, Command, Error, Job, JobExit, JobSpec};

use crate::common::{env, env_with_session, wait_capture};

async fn run_job(client: &Client, spec: &JobSpec) -> JobExit {
    let mut job = client.start_job(spec).await.unwrap();
    tokio::time::timeout(Duration::from_secs(30), job.wait())
        .await
        .expect("the job's end within 30 s")
        .unwrap()
}

/// `1\r\n2\r\n...N\r\n`: what `seq 1 N` writes through a terminal.
fn seq_output(n: u32) -> Vec<u8> {
    let mut out = Vec::new();
    for i in 1..=n {
        out.extend_from_slice(format!("{i}\r\n").as_bytes());
    }
    out
}

async fn one_line(client: &Client, args: &[&str]) -> String {
    let lines = client
        .run(&Command::new(args[0]).args(&args[1..]))
        .await
        .unwrap();
    lines
        .first()
        .map(|l| String::from_utf8_lossy(l).into_owned())
        .unwrap_or_default()
}

#[tokio::test]
async fn status_signal_and_output() {
    let env = env_with_session("jobs-status", "j").await;
    let c = &env.client;
    let exit = run_job(c, &JobSpec::window("=j:", "printf 'a b\\n'; exit 7")).await;
    assert_eq!(
        exit,
        JobExit {
            status: Some(7),
            signal: None,
            output: b"a b\r\n".to_vec()
        }
    );
    let exit = run_job(c, &JobSpec::window("=j:", "kill -TERM $$")).await;
    assert_eq!(
        exit,
        JobExit {
            status: None,
            signal: Some(15),
            output: Vec::new()
        }
    );
    let exit = run_job(c, &JobSpec::window("=j:", "true")).await;
    assert_eq!((exit.status, exit.signal), (Some(0), None));
    // The job's window went with its wait: only the session's first window is left.
    let windows = c.list_windows("=j", &[]).await.unwrap();
    assert_eq!(windows.len(), 1);
}

#[tokio::test]
async fn kill_and_drop() {
    let env = env_with_session("jobs-kill", "j").await;
    let c = &env.client;
    let mut job = c
        .start_job(&JobSpec::window("=j:", "echo started; exec sleep 60"))
        .await
        .unwrap();
    let pane = job.pane().to_string();
    wait_capture(c, &pane, &Capture::default(), |s| s.contains("started")).await;
    job.kill(15).unwrap();
    let exit = job.wait().await.unwrap();
    assert_eq!((exit.status, exit.signal), (None, Some(15)));
    assert_eq!(exit.output, b"started\r\n");
    assert!(job.kill(15).is_err(), "a job that ended refuses kill");

    // Dropped while it runs: its window is removed.
    let job = c
        .start_job(&JobSpec::window("=j:", "exec sleep 60"))
        .await
        .unwrap();
    let window = job.window();
    assert_eq!(c.list_windows("=j", &[]).await.unwrap().len(), 2);
    drop(job);
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let windows = c.list_windows("=j", &[]).await.unwrap();
        if windows.iter().all(|w| w.window != window) {
            break;
        }
        assert!(Instant::now() < deadline, "the dropped job's window stayed");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// `seq 1 5000` exiting at once, 100 times, 10 at a time: every run's output exactly.
#[tokio::test]
async fn fast_exit_output_complete_100_runs() {
    let env = env_with_session("jobs-seq", "j").await;
    let c = &env.client;
    let expected = seq_output(5000);
    let spec = JobSpec::window("=j:", "seq 1 5000");
    let mut bad = Vec::new();
    for round in 0..10 {
        let exits = join_all((0..10).map(|_| run_job(c, &spec))).await;
        for (i, exit) in exits.into_iter().enumerate() {
            assert_eq!((exit.status, exit.signal), (Some(0), None));
            if exit.output != expected {
                bad.push((round * 10 + i, exit.output.len()));
            }
        }
    }
    assert_eq!(bad, Vec::new(), "runs whose output differs (run, bytes)");
}

/// 20 jobs at once, each its own status and output.
#[tokio::test]
async fn parallel_jobs_each_their_own() {
    let env = env_with_session("jobs-par", "j").await;
    let c = &env.client;
    let specs: Vec<JobSpec> = (0..20)
        .map(|n| JobSpec::window("=j:", format!("sleep 0.{}; echo job {n}; exit {n}", n % 3)))
        .collect();
    let exits = join_all(specs.iter().map(|s| run_job(c, s))).await;
    for (n, exit) in exits.into_iter().enumerate() {
        assert_eq!(
            exit,
            JobExit {
                status: Some(n as i32),
                signal: None,
                output: format!("job {n}\r\n").into_bytes()
            }
        );
    }
}

/// The job's options are its pane's (its session's history-limit only while it is created):
/// read back on the pane, and the global values and the session's are unchanged.
#[tokio::test]
async fn options_are_the_jobs_own() {
    let env = env_with_session("jobs-opts", "j").await;
    let c = &env.client;
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path().canonicalize().unwrap();
    let global_remain = one_line(c, &["show-options", "-g", "-w", "-v", "remain-on-exit"]).await;
    let global_history = one_line(c, &["show-options", "-g", "-v", "history-limit"]).await;

    // Ground truth: does this server keep a pane's history-limit from its creation, or give it
    // its session's again when that changes (3.7)?
    c.run(&Command::new("set-option").args(["-t", "=j:", "history-limit", "1234"]))
        .await
        .unwrap();
    let probe = one_line(
        c,
        &["new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "=j:"],
    )
    .await;
    c.run(&Command::new("set-option").args(["-u", "-t", "=j:", "history-limit"]))
        .await
        .unwrap();
    let follows = one_line(
        c,
        &["display-message", "-p", "-t", &probe, "#{history_limit}"],
    )
    .await
        == global_history;
    c.run(&Command::new("kill-pane").args(["-t", &probe]))
        .await
        .unwrap();

    for split in [false, true] {
        let mut spec = if split {
            JobSpec::pane("=j:0", "printf '%s\\n' \"$JOB_VAR\"; pwd; exec sleep 60")
        } else {
            JobSpec::window("=j:", "printf '%s\\n' \"$JOB_VAR\"; pwd; exec sleep 60")
        };
        spec.history_limit = Some(1234);
        spec.environment = vec![("JOB_VAR".into(), b"it's $here".to_vec())];
        spec.directory = Some(dir.clone());
        let windows_before = c.list_windows("=j", &[]).await.unwrap().len();
        let (mut job, limit) = match c.start_job(&spec).await {
            Ok(job) => (job, "1234".to_string()),
            Err(Error::Refused(_)) if follows => {
                // Refused, and nothing left behind; without the limit it runs.
                assert_eq!(
                    c.list_windows("=j", &[]).await.unwrap().len(),
                    windows_before
                );
                spec.history_limit = None;
                (c.start_job(&spec).await.unwrap(), global_history.clone())
            }
            Err(e) => panic!("{e}"),
        };
        let pane = job.pane().to_string();
        assert_eq!(
            one_line(
                c,
                &["show-options", "-p", "-t", &pane, "-v", "remain-on-exit"]
            )
            .await,
            "on"
        );
        assert_eq!(
            one_line(
                c,
                &["display-message", "-p", "-t", &pane, "#{history_limit}"]
            )
            .await,
            limit
        );
        // Unchanged: the globals, and the session's own history-limit (none set).
        assert_eq!(
            one_line(c, &["show-options", "-g", "-w", "-v", "remain-on-exit"]).await,
            global_remain
        );
        assert_eq!(
            one_line(c, &["show-options", "-g", "-v", "history-limit"]).await,
            global_history
        );
        assert_eq!(
            c.run(&Command::new("show-options").args(["-q", "-v", "-t", "=j:", "history-limit"]))
                .await
                .unwrap(),
            Vec::<Vec<u8>>::new()
        );
        // Another window of the session keeps the session's values.
        assert_eq!(
            one_line(
                c,
                &["display-message", "-p", "-t", "=j:0.0", "#{history_limit}"]
            )
            .await,
            global_history
        );
        assert_eq!(
            one_line(
                c,
                &[
                    "show-options",
                    "-p",
                    "-t",
                    "=j:0.0",
                    "-q",
                    "-v",
                    "remain-on-exit"
                ]
            )
            .await,
            ""
        );
        // Its output holds its environment and directory once it is there.
        let shown = format!("{}", dir.display());
        wait_capture(c, &pane, &Capture::default(), |s| s.contains(&shown)).await;
        job.kill(15).unwrap();
        let exit = job.wait().await.unwrap();
        assert_eq!((exit.status, exit.signal), (None, Some(15)));
        assert_eq!(
            String::from_utf8_lossy(&exit.output),
            format!("it's $here\r\n{}\r\n", dir.display())
        );
    }
    assert_eq!(c.list_windows("=j", &[]).await.unwrap().len(), 1);
}

/// A wait on the blocking connection leaves the main one free; the signal ends it.
#[tokio::test]
async fn wait_for_holds_only_its_connection() {
    let env = env("jobs-wait").await;
    let c = env.client.clone();
    for round in 0..5 {
        let channel = format!("ch-{round}");
        let waiter = {
            let (c, channel) = (c.clone(), channel.clone());
            tokio::spawn(async move { c.wait_for(&channel).await })
        };
        // The wait reaches tmux: the blocking connection's own next command waits behind it.
        let blocking = c.blocking().await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(!waiter.is_finished(), "the wait returned before any signal");
        let answer = tokio::time::timeout(
            Duration::from_secs(5),
            c.run(&Command::new("display-message").args(["-p", "main answers"])),
        )
        .await
        .expect("the main connection answers while the wait is blocked")
        .unwrap();
        assert_eq!(answer, vec![b"main answers".to_vec()]);
        assert!(!waiter.is_finished(), "the wait returned before any signal");
        // The blocking connection's next command is held behind the wait (head of line).
        let behind = {
            let blocking = blocking.clone();
            tokio::spawn(async move {
                blocking
                    .run(&Command::new("display-message").args(["-p", "behind"]))
                    .await
            })
        };
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert!(
            !behind.is_finished(),
            "a command passed the blocked wait-for"
        );
        c.signal(&channel).await.unwrap();
        tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("the wait returns once signalled")
            .unwrap()
            .unwrap();
        let behind = tokio::time::timeout(Duration::from_secs(5), behind)
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        assert_eq!(behind, vec![b"behind".to_vec()]);
        // The same connection each time.
        assert_eq!(c.blocking().await.unwrap().pid(), blocking.pid());
    }
    // A signal sent while nobody waits is kept for the next wait.
    c.signal("early").await.unwrap();
    tokio::time::timeout(Duration::from_secs(5), c.wait_for("early"))
        .await
        .expect("a kept signal ends the next wait at once")
        .unwrap();
}

/// A wait given up releases the blocking connection.
#[tokio::test]
async fn wait_given_up_releases_the_connection() {
    let env = env("jobs-giveup").await;
    let c = &env.client;
    let gave_up = tokio::time::timeout(Duration::from_millis(200), c.wait_for("never")).await;
    assert!(gave_up.is_err());
    let blocking = c.blocking().await.unwrap();
    let answer = tokio::time::timeout(
        Duration::from_secs(5),
        blocking.run(&Command::new("display-message").args(["-p", "free"])),
    )
    .await
    .expect("the blocking connection is free again")
    .unwrap();
    assert_eq!(answer, vec![b"free".to_vec()]);
}

#[allow(dead_code)]
fn _job_is_send(job: Job) -> impl Send {
    job
}
