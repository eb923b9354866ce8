//! A job watched live ([`Client::start_job_streamed`]): the stream opens before the command
//! runs, so it has every byte the command wrote, never tmux-cc's end marker, and ends at the
//! job's end; repeated, each run checked against what the command writes.

use std::time::Duration;

use tmux_cc::{Client, JobExit, JobSpec, StreamEnd, StreamItem, StreamOptions};

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
    tokio::time::timeout(Duration::from_secs(30), read)
        .await
        .expect("the stream ends within 30 s");
    let exit = tokio::time::timeout(Duration::from_secs(30), job.wait())
        .await
        .expect("the job's end within 30 s")
        .unwrap();
    (data, other, exit)
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
