//! File scanning for read_file: counting the lines of 1 GiB from the page cache, with and without
//! the text checks (NUL, UTF-8) in the same pass, against the anchor of the Go build rat started
//! from: 1 GiB in 80 ms from the page cache, checks for text included (`docs/design/files.md`).
//!
//! `cargo bench -p benches --bench scan`. The file (1 GiB of log-like text lines, 2% of them with
//! multi-byte characters) is created in /tmp once, read once to be in the page cache, and removed
//! at the end.

use std::fs::{self, File};
use std::hint::black_box;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use rat_core::files::scan::{self, Scanner};

const SIZE: u64 = 1 << 30;

/// Writes 1 GiB of lines like a log's (about 90 bytes each), and reads it once.
fn create(path: &Path) {
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path).unwrap());
    let mut written = 0u64;
    let mut i = 0u64;
    while written < SIZE {
        let line = if i.is_multiple_of(50) {
            format!(
                "2026-11-30T12:00:{:02} worker {i}: réessai après l'échec ☕ du lot {i}\n",
                i % 60
            )
        } else {
            format!(
                "2026-11-30T12:00:{:02} worker {i}: request served in {} ms, status 200\n",
                i % 60,
                i % 977
            )
        };
        let line = &line.as_bytes()[..line.len().min((SIZE - written) as usize)];
        out.write_all(line).unwrap();
        written += line.len() as u64;
        i += 1;
    }
    out.into_inner().unwrap().sync_all().unwrap();
    // into the page cache
    let file = File::open(path).unwrap();
    scan::scan_file(&file, 0, SIZE, false, far())
        .unwrap()
        .unwrap();
}

fn far() -> Instant {
    Instant::now() + Duration::from_secs(3600)
}

/// Removes the file even if a benchmark panics.
struct Remove(PathBuf);
impl Drop for Remove {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

fn main() {
    let path = std::env::temp_dir().join(format!("rat-scan-bench-{}.log", std::process::id()));
    let _remove = Remove(path.clone());
    create(&path);
    let file = File::open(&path).unwrap();
    let lines = scan::scan_file(&file, 0, SIZE, true, far())
        .unwrap()
        .unwrap();
    assert_eq!(lines.not_text, None);
    println!("scanning {} ({} lines)", path.display(), lines.lines());

    let mut criterion = Criterion::default()
        .sample_size(10)
        .measurement_time(Duration::from_secs(8))
        .configure_from_args();
    let mut group = criterion.benchmark_group("scan 1 GiB from the page cache");
    group.throughput(Throughput::Bytes(SIZE));
    group.bench_function("count lines (read_file's totals)", |b| {
        b.iter(|| {
            scan::scan_file(&file, 0, SIZE, false, far())
                .unwrap()
                .unwrap()
                .newlines
        })
    });
    group.bench_function("count lines + NUL + UTF-8 checks, one pass", |b| {
        b.iter(|| {
            scan::scan_file(&file, 0, SIZE, true, far())
                .unwrap()
                .unwrap()
        })
    });
    let last = lines.lines();
    group.bench_function("reach the last line from the start (line_start)", |b| {
        b.iter(|| scan::line_start(&file, last, SIZE, far()).unwrap().unwrap())
    });
    group.bench_function("baseline: pread only, no pass over the bytes", |b| {
        let mut buffer = vec![0u8; scan::CHUNK];
        b.iter(|| {
            use std::os::unix::fs::FileExt;
            let mut offset = 0;
            while offset < SIZE {
                offset += file.read_at(&mut buffer, offset).unwrap() as u64;
            }
            black_box(buffer[0])
        })
    });
    group.bench_function("baseline: memchr_iter count instead of bytecount", |b| {
        let mut buffer = vec![0u8; scan::CHUNK];
        b.iter(|| {
            use std::os::unix::fs::FileExt;
            let (mut offset, mut count) = (0, 0);
            while offset < SIZE {
                let n = file.read_at(&mut buffer, offset).unwrap();
                count += memchr_count(&buffer[..n]);
                offset += n as u64;
            }
            count
        })
    });
    group.finish();
    let mut group = criterion.benchmark_group("read backwards");
    group.bench_function("line -100 of 1 GiB (line_from_end)", |b| {
        b.iter(|| {
            scan::line_from_end(&file, 100, SIZE, far())
                .unwrap()
                .unwrap()
        })
    });
    group.bench_function("text checks of 64 KiB sent (Scanner)", |b| {
        let mut chunk = vec![0u8; 64 * 1024];
        std::os::unix::fs::FileExt::read_at(&file, &mut chunk, 0).unwrap();
        b.iter(|| {
            let mut scanner = Scanner::new(true);
            scanner.feed(&chunk);
            scanner.finish(false)
        })
    });
    group.finish();
    criterion.final_summary();
    cpu_times(&file);
}

/// CPU time (user + system, all threads) and wall time per scan of the 1 GiB, over 5 scans each:
/// on a machine shared with other work, wall time tells the load as much as the code, while CPU
/// time tells what a scan costs, and wall time on an idle machine is about CPU time divided by
/// the threads scanning.
fn cpu_times(file: &File) {
    fn cpu() -> Duration {
        // /proc/self/stat: utime and stime, fields 14 and 15, in clock ticks (100 per second)
        let stat = fs::read_to_string("/proc/self/stat").unwrap();
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .collect();
        let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        Duration::from_millis(ticks * 10)
    }
    let single = scan::PARALLEL_FROM - 1;
    let cases: [(&str, &dyn Fn()); 4] = [
        ("count lines, in parts on threads", &|| {
            scan::scan_file(file, 0, SIZE, false, far())
                .unwrap()
                .unwrap();
        }),
        ("count lines + text checks, in parts on threads", &|| {
            scan::scan_file(file, 0, SIZE, true, far())
                .unwrap()
                .unwrap();
        }),
        ("count lines + text checks, one thread", &|| {
            let mut offset = 0;
            while offset < SIZE {
                let to = (offset + single).min(SIZE);
                scan::scan_file(file, offset, to, true, far())
                    .unwrap()
                    .unwrap();
                offset = to;
            }
        }),
        ("pread only, one thread", &|| {
            use std::os::unix::fs::FileExt;
            let mut buffer = vec![0u8; scan::CHUNK];
            let mut offset = 0;
            while offset < SIZE {
                offset += file.read_at(&mut buffer, offset).unwrap() as u64;
            }
        }),
    ];
    println!("per scan of 1 GiB (5 scans):");
    for (name, case) in cases {
        let (started, cpu_before) = (Instant::now(), cpu());
        for _ in 0..5 {
            case();
        }
        let wall = started.elapsed() / 5;
        let cpu = (cpu() - cpu_before) / 5;
        println!(
            "  {name}: {} ms wall, {} ms CPU",
            wall.as_millis(),
            cpu.as_millis()
        );
    }
}

fn memchr_count(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}
