//! What the note of a write in progress costs write_file (`docs/design/files.md`, a write cut
//! by the end of ratd is told): the same write_file with the journal (a small file created
//! before the write, removed after) and without, side by side in one run, for 1 KiB, 64 KiB and
//! 1 MiB of content replacing a file of the same size; then the note alone (begin and done).
//!
//! `cargo bench -p benches --bench journal`. The files and the journal are in a temporary
//! directory under /tmp (`TMPDIR` to measure another file system), removed at the end.

use std::sync::Arc;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput};
use rat_core::files::journal::Journal;
use rat_core::files::{WriteFile, write_file, write_file_noted};

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let journal = Arc::new(Journal::open(&dir.path().join("writes")).unwrap());
    let mut group = c.benchmark_group("write_file");
    for size in [1usize << 10, 64 << 10, 1 << 20] {
        let content = "0123456789abcde\n".repeat(size / 16);
        let input = |name: &str| WriteFile {
            path: dir.path().join(name).to_str().unwrap().to_owned(),
            content: content.clone(),
        };
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_with_input(BenchmarkId::new("without note", size), &size, |b, _| {
            let input = input(&format!("plain-{size}"));
            b.to_async(&runtime).iter(|| async {
                let result = write_file(input.clone(), Duration::from_secs(10)).await;
                assert!(!result.outcome.is_error(), "{}", result.text);
            });
        });
        group.bench_with_input(BenchmarkId::new("with note", size), &size, |b, _| {
            let input = input(&format!("noted-{size}"));
            b.to_async(&runtime).iter(|| async {
                let result = write_file_noted(
                    input.clone(),
                    Duration::from_secs(10),
                    Some(journal.clone()),
                )
                .await;
                assert!(!result.outcome.is_error(), "{}", result.text);
            });
        });
    }
    group.finish();
    // The note alone: created, then removed, as around each write.
    let path = dir.path().join("alone");
    c.bench_function("journal note alone (begin + done)", |b| {
        b.iter(|| journal.done(journal.begin(&path, 1 << 20)));
    });
}

fn main() {
    let mut criterion = Criterion::default()
        .configure_from_args()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    bench(&mut criterion);
    criterion.final_summary();
}
