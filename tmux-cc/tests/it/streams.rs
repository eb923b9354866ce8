//! Pane output streams against a real server: every byte in order at full speed; a slow
//! reader's pauses and resyncs marked and accounted for; the end of the pane reported; the
//! memory of both sides bounded.

use std::time::Duration;

use crate::common::{Env, env};
use tmux_cc::{
    Capture, Command, Error, NewSession, PaneId, PaneStream, StreamEnd, StreamItem, StreamOptions,
    Transport,
};

/// The tmux program on PATH, absolute: the one the pane's own `tmux wait-for` must be (a
/// client of another version may not speak the server's protocol).
fn tmux_on_path() -> String {
    let path = std::env::var_os("PATH").expect("PATH");
    std::env::split_paths(&path)
        .map(|dir| dir.join("tmux"))
        .find(|p| p.is_file())
        .expect("tmux on PATH")
        .display()
        .to_string()
}

/// A session `name` whose pane runs `script` (sh) once the test signals `go-NAME`, then
/// stays (a pane whose program exits may lose its last output in tmux 3.3a, which closes
/// the terminal without reading what is left on it).
async fn pane(env: &Env, name: &str, setup: &str, script: &str) -> PaneId {
    let mut new = NewSession::new(name);
    new.command = vec![
        b"sh".to_vec(),
        b"-c".to_vec(),
        format!("{setup} \"$0\" wait-for go-{name} && {script}; exec sleep 100000").into_bytes(),
        tmux_on_path().into_bytes(),
    ];
    env.client.new_session(&new).await.unwrap().pane
}

async fn go(env: &Env, name: &str) {
    env.client
        .run(&Command::new("wait-for").args(["-S", &format!("go-{name}")]))
        .await
        .unwrap();
}

/// A pause only past 60 s: the pane prints far faster than a debug build on a shared CPU
/// reads (8 MB in a fraction of a second), so a 1 s pause-after could pause even a reader at
/// full speed; these tests are about order and completeness, the slow reader's about pauses.
fn lossless(transport: Transport) -> StreamOptions {
    StreamOptions {
        transport,
        pause_after: 60,
        // A pipe stream holds 256 x 64 KiB: 16 MiB, far more than a test prints.
        capacity: 256,
        ..StreamOptions::default()
    }
}

/// Reads `stream` at full speed until `want.len()` bytes came (at most 60 s).
async fn read_all(stream: &mut PaneStream, want: usize) -> Vec<u8> {
    let mut got = Vec::with_capacity(want);
    let read = tokio::time::timeout(Duration::from_secs(60), async {
        while got.len() < want {
            match stream.next().await {
                Some(StreamItem::Data(bytes)) => got.extend_from_slice(&bytes),
                other => panic!("after {} bytes: {other:?}", got.len()),
            }
        }
    })
    .await;
    assert!(
        read.is_ok(),
        "timed out after {} of {want} bytes",
        got.len()
    );
    got
}

#[tokio::test]
async fn a_fast_reader_gets_every_byte_of_seq_in_order() {
    fast_seq("stream-seq", Transport::ControlMode).await;
}

#[tokio::test]
async fn a_fast_reader_gets_every_byte_of_seq_in_order_through_a_pipe() {
    fast_seq("stream-seq-pipe", Transport::Pipe).await;
}

async fn fast_seq(socket: &str, transport: Transport) {
    let env = env(socket).await;
    let pane = pane(&env, "seq", "", "seq 1 1000000").await;
    let mut stream = env.client.stream(pane, lossless(transport)).await.unwrap();
    assert_eq!(stream.transport(), transport);
    go(&env, "seq").await;
    // The terminal turns each LF into CR LF.
    let want: Vec<u8> = (1..=1_000_000)
        .flat_map(|n| format!("{n}\r\n").into_bytes())
        .collect();
    let got = read_all(&mut stream, want.len()).await;
    assert!(
        got == want,
        "{} bytes, first difference at {:?}",
        got.len(),
        got.iter().zip(&want).position(|(a, b)| a != b)
    );
}

#[tokio::test]
async fn a_fast_reader_gets_every_byte_value_in_order() {
    fast_bytes("stream-bytes", Transport::ControlMode).await;
}

#[tokio::test]
async fn a_fast_reader_gets_every_byte_value_in_order_through_a_pipe() {
    fast_bytes("stream-bytes-pipe", Transport::Pipe).await;
}

async fn fast_bytes(socket: &str, transport: Transport) {
    let env = env(socket).await;
    let blob: Vec<u8> = (0..4096u32).flat_map(|_| 0..=255u8).collect(); // 1 MiB
    let file = env.client.private_dir().join("blob");
    std::fs::write(&file, &blob).unwrap();
    // Raw and without echo: the terminal passes every byte as the program wrote it.
    let script = format!("cat '{}'", file.display());
    let pane = pane(&env, "bytes", "stty raw -echo;", &script).await;
    let mut stream = env.client.stream(pane, lossless(transport)).await.unwrap();
    go(&env, "bytes").await;
    let got = read_all(&mut stream, blob.len()).await;
    assert!(
        got == blob,
        "{} bytes, first difference at {:?}",
        got.len(),
        got.iter().zip(&blob).position(|(a, b)| a != b)
    );
}

/// One stretch of the stream: the snapshot it resumed from (none for the first), the data
/// after it.
struct Segment {
    snapshot: Option<Vec<u8>>,
    data: Vec<u8>,
}

/// VmHWM (peak resident memory) of process `pid`, in kB.
fn peak_rss_kb(pid: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

fn numbers(line: &[u8]) -> u64 {
    std::str::from_utf8(line)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("not a number: {:?}", String::from_utf8_lossy(line)))
}

#[tokio::test]
async fn a_slow_reader_sees_each_pause_and_resync_and_they_account_for_the_output() {
    slow_reader(
        "stream-slow",
        StreamOptions {
            pause_after: 1,
            // The whole screen, its empty rows included: the last row is the cursor's.
            snapshot: Capture::default(),
            ..StreamOptions::default()
        },
    )
    .await;
}

#[tokio::test]
async fn a_slow_reader_of_a_pipe_sees_each_pause_and_resync_and_they_account_for_the_output() {
    slow_reader(
        "stream-slow-pipe",
        StreamOptions {
            transport: Transport::Pipe,
            // 4 x 64 KiB held: the 1.3 MB printed during the stall do not fit.
            capacity: 4,
            snapshot: Capture::default(),
            ..StreamOptions::default()
        },
    )
    .await;
}

async fn slow_reader(socket: &str, options: StreamOptions) {
    let env = env(socket).await;
    let pane = pane(&env, "slow", "", "seq 1 200000; echo END").await;
    let mut stream = env.client.stream(pane, options).await.unwrap();
    go(&env, "slow").await;
    // Stalled for 2 s (tmux pauses the pane after 1 s of unread output; a pipe stream's
    // channel fills): the main connection answers meanwhile.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        env.client
            .run(&Command::new("display-message").args(["-p", "still here"]))
            .await
            .unwrap(),
        vec![b"still here".to_vec()]
    );
    let mut segments = vec![Segment {
        snapshot: None,
        data: Vec::new(),
    }];
    let (mut pauses, mut continues, mut items) = (0, 0, 0);
    let mut paused = false;
    let done = |segments: &[Segment]| {
        let last = segments.last().unwrap();
        // Only the end of the data is looked at: the reader stays fast.
        let tail = &last.data[last.data.len().saturating_sub(8)..];
        let has = |b: &[u8]| b.windows(3).any(|w| w == b"END");
        has(tail) || last.snapshot.as_deref().is_some_and(has)
    };
    let read = tokio::time::timeout(Duration::from_secs(120), async {
        while !done(&segments) {
            let item = stream.next().await.expect("an item");
            items += 1;
            match item {
                StreamItem::Data(bytes) => {
                    assert!(!paused, "data between a pause and its resync");
                    segments.last_mut().unwrap().data.extend_from_slice(&bytes);
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                StreamItem::Paused => {
                    assert!(!paused, "two pauses without a resync");
                    paused = true;
                    pauses += 1;
                }
                StreamItem::Continued => {
                    assert!(paused, "a continue without a pause");
                    continues += 1;
                }
                StreamItem::Resynced(snapshot) => {
                    assert!(paused, "a resync without a pause");
                    paused = false;
                    segments.push(Segment {
                        snapshot: Some(snapshot.capture.to_vec()),
                        data: Vec::new(),
                    });
                }
                StreamItem::End(why) => panic!("ended: {why:?}"),
            }
        }
    })
    .await;
    assert!(
        read.is_ok(),
        "END never came; {} items; the last data: {:?}",
        items,
        {
            let d = &segments.last().unwrap().data;
            String::from_utf8_lossy(&d[d.len().saturating_sub(60)..]).into_owned()
        }
    );
    let bytes: usize = segments.iter().map(|s| s.data.len()).sum();
    let server_peak = peak_rss_kb(&env.server.pid().to_string());
    let own_peak = peak_rss_kb("self");
    eprintln!(
        "slow reader: {items} items, {bytes} bytes of data, {pauses} pauses, {continues} \
         continues, {} resyncs; peak RSS: test process {own_peak} kB, tmux server \
         {server_peak} kB",
        segments.len() - 1
    );
    assert!(pauses >= 1, "no pause happened");
    assert_eq!(continues, pauses, "each pause continued");

    // The numbers: each segment a run of consecutive numbers, which goes on from the
    // snapshot it resumed from; a gap only where a pause lies.
    let mut last: u64 = 0;
    for (i, segment) in segments.iter().enumerate() {
        let mut text = Vec::new();
        let mut snapshot_rows = Vec::new();
        if let Some(snapshot) = &segment.snapshot {
            let mut rows: Vec<&[u8]> = snapshot.split(|b| *b == b'\n').collect();
            assert_eq!(rows.pop(), Some(&b""[..]), "a capture ends with LF");
            assert_eq!(rows.len(), 24, "the whole screen");
            // The cursor's row (the last, the screen scrolled) goes on in the data after.
            let cursor_row = rows.pop().unwrap();
            snapshot_rows = rows
                .iter()
                .filter(|r| !r.is_empty())
                .map(|r| r.to_vec())
                .collect();
            text.extend_from_slice(cursor_row);
        }
        text.extend_from_slice(&segment.data);
        let mut lines: Vec<&[u8]> = text.split(|b| *b == b'\n').collect();
        // The bytes after the last LF: a line cut by the next pause, or nothing.
        let _partial = lines.pop();
        let mut run: Vec<Vec<u8>> = snapshot_rows;
        run.extend(
            lines
                .iter()
                .map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec()),
        );
        if run.last().is_some_and(|l| l == b"END") {
            run.pop();
        }
        let run: Vec<u64> = run.iter().map(|l| numbers(l)).collect();
        if let (Some(first), Some(&end)) = (run.first(), run.last()) {
            assert!(*first > last, "segment {i} starts at {first}, after {last}");
            if i == 0 {
                assert_eq!(*first, 1, "the first segment starts with the output");
            }
            for pair in run.windows(2) {
                assert_eq!(pair[1], pair[0] + 1, "segment {i} is not a run");
            }
            last = end;
        }
    }
    assert_eq!(last, 200_000, "the output's last number was seen");
}

/// The stream's `End`, skipping what comes before it (at most 20 s).
async fn end_of(stream: &mut PaneStream) -> StreamEnd {
    tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            match stream.next().await {
                Some(StreamItem::End(why)) => return why,
                Some(_) => continue,
                None => panic!("the stream ended without an End item"),
            }
        }
    })
    .await
    .expect("the stream's End within 20 s")
}

#[tokio::test]
async fn the_stream_ends_when_its_pane_or_window_goes() {
    ends("stream-end", Transport::ControlMode).await;
}

#[tokio::test]
async fn a_pipe_stream_ends_when_its_pane_or_window_goes() {
    ends("stream-end-pipe", Transport::Pipe).await;
}

async fn ends(socket: &str, transport: Transport) {
    let options = || StreamOptions {
        transport,
        ..StreamOptions::default()
    };
    let env = env(socket).await;
    let created = env
        .client
        .new_session(&NewSession::new("end"))
        .await
        .unwrap();
    let split = env
        .client
        .run(&Command::new("split-window").args([
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            "-t",
            &created.pane.to_string(),
        ]))
        .await
        .unwrap();
    let second: PaneId = String::from_utf8_lossy(&split[0]).parse().unwrap();
    let mut stream = env.client.stream(second, options()).await.unwrap();
    env.client
        .run(&Command::new("kill-pane").args(["-t", &second.to_string()]))
        .await
        .unwrap();
    let end = end_of(&mut stream).await;
    assert_eq!(end, StreamEnd::PaneClosed);
    assert_eq!(stream.next().await, None);

    // A window of its own, killed while the session stays.
    let window = env
        .client
        .run(&Command::new("new-window").args(["-d", "-P", "-F", "#{pane_id}", "-t", "=end:"]))
        .await
        .unwrap();
    let alone: PaneId = String::from_utf8_lossy(&window[0]).parse().unwrap();
    let mut stream = env.client.stream(alone, options()).await.unwrap();
    env.client
        .run(&Command::new("kill-pane").args(["-t", &alone.to_string()]))
        .await
        .unwrap();
    let end = end_of(&mut stream).await;
    assert_eq!(end, StreamEnd::WindowClosed);

    // No such pane: tmux's message.
    let err = env
        .client
        .stream(PaneId(9999), options())
        .await
        .unwrap_err();
    assert!(err.to_string().contains("can't find pane"), "{err}");
}

#[tokio::test]
async fn a_pipe_stream_is_refused_on_a_piped_pane_and_ends_when_its_pipe_is_taken() {
    let env = env("stream-pipe-taken").await;
    let created = env
        .client
        .new_session(&NewSession::new("taken"))
        .await
        .unwrap();
    let target = created.pane.to_string();
    let theirs = env.client.private_dir().join("theirs");
    let pipe_to = |file: &std::path::Path| {
        Command::new("pipe-pane").args([
            "-O",
            "-t",
            &target,
            &format!("cat > '{}'", file.display()),
        ])
    };
    env.client.run(&pipe_to(&theirs)).await.unwrap();
    let err = env
        .client
        .stream(created.pane, lossless(Transport::Pipe))
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Refused(_)) && err.to_string().contains("has a pipe already"),
        "{err}"
    );
    // Their pipe is left as it was, and a control-mode stream is not refused.
    let piped = |env: &Env| {
        let target = target.clone();
        let client = env.client.clone();
        async move {
            client
                .run(&Command::new("display-message").args(["-p", "-t", &target, "#{pane_pipe}"]))
                .await
                .unwrap()
        }
    };
    assert_eq!(piped(&env).await, vec![b"1".to_vec()]);
    let control = env
        .client
        .stream(created.pane, lossless(Transport::ControlMode))
        .await
        .unwrap();
    drop(control);

    // Theirs closed, ours opens; a pipe-pane of somebody else then ends ours.
    env.client
        .run(&Command::new("pipe-pane").args(["-t", &target]))
        .await
        .unwrap();
    let mut stream = env
        .client
        .stream(created.pane, lossless(Transport::Pipe))
        .await
        .unwrap();
    assert_eq!(piped(&env).await, vec![b"1".to_vec()]);
    env.client.run(&pipe_to(&theirs)).await.unwrap();
    assert_eq!(end_of(&mut stream).await, StreamEnd::PipeClosed);
    assert_eq!(stream.next().await, None);
    assert_eq!(piped(&env).await, vec![b"1".to_vec()], "theirs stays");

    // Taken, then dropped (or finished) before the stream looked: theirs stays all the same.
    for finish in [false, true] {
        env.client
            .run(&Command::new("pipe-pane").args(["-t", &target]))
            .await
            .unwrap();
        let mut stream = env
            .client
            .stream(created.pane, lossless(Transport::Pipe))
            .await
            .unwrap();
        env.client.run(&pipe_to(&theirs)).await.unwrap();
        // Time for our pipe's end to reach the stream's reader.
        tokio::time::sleep(Duration::from_millis(300)).await;
        if finish {
            stream.finish();
            assert_eq!(end_of(&mut stream).await, StreamEnd::PipeClosed);
        }
        drop(stream);
        env.client.written().await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(
            piped(&env).await,
            vec![b"1".to_vec()],
            "theirs stays (finish: {finish})"
        );
    }

    // A stream dropped closes its pipe (theirs was closed for this part).
    env.client
        .run(&Command::new("pipe-pane").args(["-t", &target]))
        .await
        .unwrap();
    let stream = env
        .client
        .stream(created.pane, lossless(Transport::Pipe))
        .await
        .unwrap();
    drop(stream);
    let closed = tokio::time::timeout(Duration::from_secs(10), async {
        while piped(&env).await != vec![b"0".to_vec()] {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(closed.is_ok(), "the dropped stream's pipe is still open");
}

#[tokio::test]
async fn finishing_a_pipe_stream_stops_it_after_what_the_pipe_held() {
    let env = env("stream-finish-pipe").await;
    // A pane that stays after its program.
    let pane = pane(&env, "live", "", "seq 1 50000").await;
    let want: Vec<u8> = (1..=50_000)
        .flat_map(|n| format!("{n}\r\n").into_bytes())
        .collect();
    let mut stream = env
        .client
        .stream(pane, lossless(Transport::Pipe))
        .await
        .unwrap();
    go(&env, "live").await;
    let got = read_all(&mut stream, want.len()).await;
    assert!(got == want, "{} bytes", got.len());
    stream.finish();
    assert_eq!(end_of(&mut stream).await, StreamEnd::Stopped);
    assert_eq!(stream.next().await, None);
    let piped = env
        .client
        .run(&Command::new("display-message").args(["-p", "-t", &pane.to_string(), "#{pane_pipe}"]))
        .await
        .unwrap();
    assert_eq!(piped, vec![b"0".to_vec()], "the pipe is closed");

    // A pane kept dead by remain-on-exit: tmux refuses to close its pipe, and the stream
    // stops once the pipe stays quiet. What came is the start of the output (tmux itself may
    // not have read the last bytes of a program that exits: docs/design/engine-streams.md).
    let said = env
        .client
        .run(&Command::new("new-window").args([
            "-d",
            "-P",
            "-F",
            "#{pane_id}",
            "-t",
            "=live:",
            "sh",
            "-c",
            "\"$0\" wait-for go-dead && seq 1 50000",
            &tmux_on_path(),
        ]))
        .await
        .unwrap();
    let dead: PaneId = String::from_utf8_lossy(&said[0]).parse().unwrap();
    let target = dead.to_string();
    env.client
        .run(&Command::new("set-option").args(["-p", "-t", &target, "remain-on-exit", "on"]))
        .await
        .unwrap();
    let mut stream = env
        .client
        .stream(dead, lossless(Transport::Pipe))
        .await
        .unwrap();
    go(&env, "dead").await;
    let died = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            let said = env
                .client
                .run(&Command::new("display-message").args(["-p", "-t", &target, "#{pane_dead}"]))
                .await
                .unwrap();
            if said == vec![b"1".to_vec()] {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert!(died.is_ok(), "the pane never died");
    stream.finish();
    let mut got = Vec::new();
    let end = tokio::time::timeout(Duration::from_secs(20), async {
        loop {
            match stream.next().await {
                Some(StreamItem::Data(bytes)) => got.extend_from_slice(&bytes),
                Some(StreamItem::End(why)) => return why,
                other => panic!("after {} bytes: {other:?}", got.len()),
            }
        }
    })
    .await
    .expect("the end within 20 s");
    assert_eq!(end, StreamEnd::Stopped);
    assert!(
        want.starts_with(&got) && !got.is_empty(),
        "{} bytes, not the output's start",
        got.len()
    );
    assert_eq!(stream.next().await, None);
}

#[tokio::test]
async fn a_pipe_stream_cancelled_while_it_opens_leaves_no_pipe_nor_fifo() {
    let env = env("stream-pipe-cancel").await;
    let created = env
        .client
        .new_session(&NewSession::new("cancel"))
        .await
        .unwrap();
    let target = created.pane.to_string();
    let fifos = |env: &Env| {
        std::fs::read_dir(env.client.private_dir())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with("stream-"))
            .count()
    };
    // Cancelled at each point of the opening: before the check, around the pipe-pane, while
    // the FIFO opens, after.
    for micros in [
        0u64, 20, 50, 100, 200, 400, 700, 1000, 1500, 2000, 3000, 5000, 10000,
    ] {
        let opened = tokio::time::timeout(
            Duration::from_micros(micros),
            env.client.stream(created.pane, lossless(Transport::Pipe)),
        )
        .await;
        drop(opened);
        let clean = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                let piped = env
                    .client
                    .run(&Command::new("display-message").args([
                        "-p",
                        "-t",
                        &target,
                        "#{pane_pipe}",
                    ]))
                    .await
                    .unwrap();
                if piped == vec![b"0".to_vec()] && fifos(&env) == 0 {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await;
        assert!(
            clean.is_ok(),
            "cancelled after {micros} us: a pipe or a FIFO is left ({} FIFOs)",
            fifos(&env)
        );
    }
    // And the pane streams as new afterwards.
    let mut stream = env
        .client
        .stream(created.pane, lossless(Transport::Pipe))
        .await
        .unwrap();
    env.client
        .run(&Command::new("send-keys").args(["-t", &target, "-l", "echo hi-there\r"]))
        .await
        .unwrap();
    let mut got = Vec::new();
    let seen = tokio::time::timeout(Duration::from_secs(10), async {
        while !got.windows(8).any(|w| w == b"hi-there") {
            match stream.next().await {
                Some(StreamItem::Data(bytes)) => got.extend_from_slice(&bytes),
                other => panic!("{other:?}"),
            }
        }
    })
    .await;
    assert!(seen.is_ok(), "{:?}", String::from_utf8_lossy(&got));
}
