//! A job watched live ([`Client::start_job_streamed`]): the stream opens before the command
//! runs, so it has every byte the command wrote, never tmux-cc's end marker, and ends at the
//! job's end; repeated, each run checked against what the command writes.

use std::time::Duration;

use tmux_cc::{Client, Command, JobExit, JobSpec, PaneId, StreamEnd, StreamItem, StreamOptions};

use crate::common::env_with_session;

/// What one run saw: the items of its stream (its bytes joined), then the job's exit.
async fn watched(client: &Client, spec: &JobSpec) -> (Vec<u8>, Vec<StreamItem>, JobExit) {
    let (mut job, mut stream) = client
        .start_job_streamed(spec, StreamOptions::default())
        .await
        .unwrap();
    let mut data = Vec::new();
    let mut other = Vec::new();
    let read = async {
        while let Some(item) = stream.next().await {
            match item {
                StreamItem::Data(bytes) => data.extend_from_slice(&bytes),
                item => other.push(item),
            }
        }
    };
    if tokio::time::timeout(Duration::from_secs(30), read)
        .await
        .is_err()
    {
        let pane = state(client, job.pane()).await;
        panic!(
            "the stream did not end within 30 s, after {:?} and {other:?}; {pane}",
            String::from_utf8_lossy(&data)
        );
    }
    let exit = tokio::time::timeout(Duration::from_secs(30), job.wait())
        .await
        .expect("the job's end within 30 s")
        .unwrap();
    (data, other, exit)
}

/// For a stream that did not end: the job's pane (dead, its status) and its screen with the
/// lines above it, as tmux has them.
async fn state(client: &Client, pane: PaneId) -> String {
    let pane = pane.to_string();
    let show = |r: tmux_cc::Result<Vec<Vec<u8>>>| match r {
        Ok(lines) => lines
            .iter()
            .map(|l| String::from_utf8_lossy(l).into_owned())
            .collect::<Vec<_>>()
            .join(" | "),
        Err(e) => e.to_string(),
    };
    let format = "dead #{pane_dead}, status #{pane_dead_status}, #{history_size} lines above";
    let said = client
        .run(&Command::new("display-message").args(["-p", "-t", &pane, format]))
        .await;
    let screen = client
        .run(&Command::new("capture-pane").args(["-p", "-S", "-", "-t", &pane]))
        .await;
    format!(
        "the pane {pane}: {}; its lines: {}",
        show(said),
        show(screen)
    )
}

/// `echo first; echo second; exit 5`, 100 times one after the other: every byte on the stream
/// from the first, no marker, the stream's end at the job's, status 5. (Not 10 at once: tmux
/// 3.3a crashes, SIGSEGV, with ten streams attaching and detaching at once; see
/// docs/design/engine-streams.md, "tmux crashes".)
#[tokio::test]
async fn a_fast_job_streamed_live_has_every_byte_and_no_marker_100_runs() {
    let env = env_with_session("jobs-live", "j").await;
    let c = &env.client;
    let spec = JobSpec::window("=j:", "echo first; echo second; exit 5");
    let expected = b"first\r\nsecond\r\n".to_vec();
    let mut bad = Vec::new();
    for run in 0..100 {
        let (data, other, exit) = watched(c, &spec).await;
        let good = data == expected
            && other == [StreamItem::End(StreamEnd::Finished)]
            && exit.status == Some(5)
            && exit.signal.is_none()
            && exit.output == expected;
        if !good {
            bad.push((
                run,
                String::from_utf8_lossy(&data).into_owned(),
                other,
                exit,
            ));
        }
    }
    assert!(bad.is_empty(), "runs that differ: {bad:#?}");
}

/// A job that prints after a while, in pieces: the same, and the stream has the bytes while
/// the job still runs (the first line before the job's end).
#[tokio::test]
async fn a_slow_job_streams_while_it_runs() {
    let env = env_with_session("jobs-live-slow", "j").await;
    let spec = JobSpec::window(
        "=j:",
        "echo first; sleep 0.5; printf 'sec'; sleep 0.2; echo ond; exit 5",
    );
    let (mut job, mut stream) = env
        .client
        .start_job_streamed(&spec, StreamOptions::default())
        .await
        .unwrap();
    let first = tokio::time::timeout(Duration::from_secs(10), stream.next())
        .await
        .expect("the first line within 10 s");
    assert_eq!(first, Some(StreamItem::Data("first\r\n".into())));
    let mut data = Vec::new();
    let mut last = None;
    while let Some(item) = stream.next().await {
        match item {
            StreamItem::Data(bytes) => data.extend_from_slice(&bytes),
            item => last = Some(item),
        }
    }
    assert_eq!(String::from_utf8_lossy(&data), "second\r\n");
    assert_eq!(last, Some(StreamItem::End(StreamEnd::Finished)));
    let exit = job.wait().await.unwrap();
    assert_eq!(
        (exit.status, exit.signal, exit.output),
        (Some(5), None, b"first\r\nsecond\r\n".to_vec())
    );
}

/// A job's stream whose reader falls behind past `pause-after`: tmux pauses the pane and drops
/// its output, the job's end marker with it, and the stream says so (`Paused`, then
/// `Continued`, `Resynced`). It still ends, `Finished`, once the job's own pipe had the
/// marker: every byte tmux read was delivered or told dropped. The job's output is whole.
#[tokio::test]
async fn a_job_stream_that_lost_its_end_to_a_pause_still_ends() {
    let env = env_with_session("jobs-live-paused", "j").await;
    let spec = JobSpec::window("=j:", "seq 1 300000; exit 4");
    let (mut job, mut stream) = env
        .client
        .start_job_streamed(&spec, StreamOptions::default())
        .await
        .unwrap();
    // Not read for three times pause-after: tmux pauses the pane.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut items = Vec::new();
    let mut got = 0usize;
    let read = async {
        while let Some(item) = stream.next().await {
            match item {
                StreamItem::Data(d) => got += d.len(),
                item => items.push(item),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), read)
        .await
        .unwrap_or_else(|_| panic!("the stream did not end within 30 s: {items:?}"));
    let kinds: Vec<&str> = items
        .iter()
        .map(|item| match item {
            StreamItem::Paused => "Paused",
            StreamItem::Continued => "Continued",
            StreamItem::Resynced(_) => "Resynced",
            StreamItem::End(StreamEnd::Finished) => "End(Finished)",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        ["Paused", "Continued", "Resynced", "End(Finished)"],
        "{got} bytes, then {items:?}"
    );
    let exit = tokio::time::timeout(Duration::from_secs(30), job.wait())
        .await
        .expect("the job's end within 30 s")
        .unwrap();
    assert_eq!(exit.status, Some(4));
    let expected: String = (1..=300000).map(|n| format!("{n}\r\n")).collect();
    assert_eq!(exit.output, expected.as_bytes());
}

/// The job waited for before its stream is read: the wait is not held up by the stream (the
/// job ends), and the stream still ends, `Finished` with every byte when it had the job's end,
/// `PaneClosed` (its last output may be missing) when the job ended before it had.
#[tokio::test]
async fn a_job_waited_for_before_its_stream_is_read_ends_and_so_does_the_stream() {
    let env = env_with_session("jobs-live-waited", "j").await;
    let spec = JobSpec::window("=j:", "seq 1 300000; exit 4");
    let (mut job, mut stream) = env
        .client
        .start_job_streamed(&spec, StreamOptions::default())
        .await
        .unwrap();
    let exit = tokio::time::timeout(Duration::from_secs(30), job.wait())
        .await
        .expect("the job's end within 30 s, its stream unread")
        .unwrap();
    assert_eq!(exit.status, Some(4));
    let expected: String = (1..=300000).map(|n| format!("{n}\r\n")).collect();
    assert_eq!(exit.output, expected.as_bytes());
    let mut data = Vec::new();
    let mut other = Vec::new();
    let read = async {
        while let Some(item) = stream.next().await {
            match item {
                StreamItem::Data(bytes) => data.extend_from_slice(&bytes),
                item => other.push(item),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), read)
        .await
        .expect("the stream ends within 30 s");
    match other.last() {
        Some(StreamItem::End(StreamEnd::Finished)) if other.len() == 1 => {
            assert_eq!(
                data,
                expected.as_bytes(),
                "Finished with no pause: every byte"
            );
        }
        Some(StreamItem::End(
            StreamEnd::Finished | StreamEnd::PaneClosed | StreamEnd::WindowClosed,
        )) => {}
        _ => panic!("{} bytes, then {other:?}", data.len()),
    }
}

/// A job's stream that tmux paused, the job waited for (its window removed) before the
/// stream is read: after its bytes, `Paused`, then the window's close. The resync after the
/// pause finds no pane; the stream ends as the close that tmux told it before, not as a failed
/// resync. (The output still queued after 2 s makes tmux pause the pane at the last line.)
#[tokio::test]
async fn a_paused_job_stream_whose_window_went_ends_with_the_close() {
    let env = env_with_session("jobs-live-paused-gone", "j").await;
    let spec = JobSpec::window("=j:", "seq 1 300000; sleep 2; echo late; exit 4");
    let (mut job, mut stream) = env
        .client
        .start_job_streamed(&spec, StreamOptions::default())
        .await
        .unwrap();
    let exit = tokio::time::timeout(Duration::from_secs(30), job.wait())
        .await
        .expect("the job's end within 30 s, its stream unread")
        .unwrap();
    assert_eq!(exit.status, Some(4));
    let mut got = 0usize;
    let mut other = Vec::new();
    let read = async {
        while let Some(item) = stream.next().await {
            match item {
                StreamItem::Data(bytes) => got += bytes.len(),
                item => other.push(item),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), read)
        .await
        .expect("the stream ends within 30 s");
    assert_eq!(
        other,
        [StreamItem::Paused, StreamItem::End(StreamEnd::WindowClosed)],
        "after {got} bytes"
    );
}
