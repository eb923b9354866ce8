//! Starting child processes that die with their owner, and are reaped.
//!
//! tmux 3.3a trap (tmux issue 5444): if the process reading a `tmux -C` client dies and the
//! client lives on, `kill-server` never completes until that orphaned client is killed. So every
//! child tmux-cc starts asks the kernel to signal it when its parent dies
//! (`prctl(PR_SET_PDEATHSIG)`), set between `fork` and `exec`.
//!
//! `PR_SET_PDEATHSIG` fires when the *thread* that forked the child ends, not the process. Tokio
//! may run a task on a blocking-pool thread that ends after a while, so every child is forked
//! from one dedicated thread that lives as long as the process: the signal then means "the
//! owning process died". Children are `tokio::process::Child`ren, reaped by tokio even when
//! dropped unwaited.
//!
//! Each child is also put in a process group of its own, so that a Ctrl-C typed at the owner's
//! terminal reaches the owner only: the owner decides when its tmux server stops.

use std::io;
use std::sync::OnceLock;
use std::sync::mpsc;

use tokio::process::{Child, Command};

type Job = Box<dyn FnOnce() + Send + 'static>;

fn spawner() -> &'static mpsc::Sender<Job> {
    static SPAWNER: OnceLock<mpsc::Sender<Job>> = OnceLock::new();
    SPAWNER.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("tmux-cc-spawner".into())
            .spawn(move || {
                for job in rx {
                    job();
                }
            })
            .expect("starting the tmux-cc spawner thread");
        tx
    })
}

/// Which signal a child receives when its owner dies.
#[derive(Debug, Clone, Copy)]
pub(crate) enum DeathSignal {
    /// SIGTERM: a tmux server exits cleanly on it, hanging up its panes.
    Term,
    /// SIGKILL: for clients, which hold nothing worth a clean exit.
    Kill,
}

/// Starts `cmd` from the spawner thread, with the death signal set and a process group of its
/// own. Must be called inside a tokio runtime.
pub(crate) async fn spawn(mut cmd: Command, on_owner_death: DeathSignal) -> io::Result<Child> {
    let signal = match on_owner_death {
        DeathSignal::Term => libc::SIGTERM,
        DeathSignal::Kill => libc::SIGKILL,
    };
    let owner = std::process::id();
    cmd.process_group(0);
    set_death_signal(&mut cmd, signal, owner);
    let handle = tokio::runtime::Handle::current();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let _entered = handle.enter();
        let _ = tx.send(cmd.spawn());
    });
    spawner()
        .send(job)
        .map_err(|_| io::Error::other("the tmux-cc spawner thread is gone"))?;
    rx.await
        .map_err(|_| io::Error::other("the tmux-cc spawner thread dropped a spawn"))?
}

// The one unsafe block of tmux-cc: `pre_exec` is unsafe because the closure runs in the child
// between fork and exec, where only async-signal-safe functions may be called. It calls exactly
// two, `prctl` and `getppid`, and allocates nothing. No safe API sets a death signal on a child
// (std and tokio offer none), and without it a dying owner leaves `tmux -C` clients that wedge
// `kill-server` (tmux issue 5444).
#[allow(unsafe_code)]
fn set_death_signal(cmd: &mut Command, signal: libc::c_int, owner: u32) {
    // SAFETY: see above; the closure only calls async-signal-safe functions and builds an
    // io::Error from errno without allocating on the success path.
    unsafe {
        cmd.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, signal as libc::c_ulong, 0, 0, 0) != 0 {
                return Err(io::Error::last_os_error());
            }
            // The owner may have died between fork and prctl: then the signal never comes.
            if libc::getppid() as u32 != owner {
                libc::_exit(1);
            }
            Ok(())
        });
    }
}
