//! Parses of untrusted source for the gateway's own thread (`transformTypeScript`,
//! `redactSource`): the work runs on a helper thread and the caller waits at most a
//! budget. A helper still busy then is given up: it finishes alone at guest priority (or
//! never, once stopped by a memory budget), and while [`MAX_OVERDUE`] such helpers are
//! out, no more work is started.

use crossbeam_channel::{bounded, unbounded, Sender};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long the gateway's thread waits for one parse. A cell's whole source parses in
/// milliseconds; only parser speculation gone super-linear (chains of unclosed `<` in
/// TypeScript) takes longer.
pub const BUDGET: Duration = Duration::from_secs(2);

/// Given-up helpers at once: each computes on idle time, or was stopped for good by its
/// parse's memory budget (`alloc_budget`) and holds at most that budget.
pub const MAX_OVERDUE: usize = 8;

type Job = Box<dyn FnOnce() + Send>;

/// The helper that takes the next job.
struct Helper {
    jobs: Sender<Job>,
    /// Its kernel thread id, to lower its priority when it is given up (Linux).
    tid: Arc<AtomicI64>,
    given_up: Arc<AtomicBool>,
}

static HELPER: Mutex<Option<Helper>> = Mutex::new(None);
static OVERDUE: AtomicUsize = AtomicUsize::new(0);

/// Why [`run`] has no result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unfinished {
    /// The work did not finish within the budget.
    Overran,
    /// The work ran over its memory budget (`alloc_budget`) and was stopped for good.
    Stopped,
    /// The work gave no result: [`MAX_OVERDUE`] helpers still compute, no thread could
    /// start, or it panicked.
    Unavailable,
}

/// Runs `work` on the helper and returns its result, unless it does not finish within
/// `budget` or cannot start.
pub fn run<R: Send + 'static>(
    budget: Duration,
    work: impl FnOnce() -> R + Send + 'static,
) -> Result<R, Unfinished> {
    let mut slot = HELPER.lock();
    if slot.is_none() {
        *slot = Some(spawn_helper().ok_or(Unfinished::Unavailable)?);
    }
    let helper = slot.as_ref().ok_or(Unfinished::Unavailable)?;
    let (answer, result) = bounded(1);
    let (stop, stopped) = bounded::<()>(1);
    let job: Job = Box::new(move || {
        crate::runtime::alloc_budget::on_overrun_here(Box::new(move || {
            let _ = stop.try_send(());
        }));
        let _ = answer.send(work());
    });
    if helper.jobs.send(job).is_err() {
        *slot = None;
        return Err(Unfinished::Unavailable);
    }
    let unfinished = crossbeam_channel::select! {
        recv(result) -> value => match value {
            Ok(value) => return Ok(value),
            // The work panicked (the helper caught it): the helper itself is fine.
            Err(_) => return Err(Unfinished::Unavailable),
        },
        recv(stopped) -> _ => Unfinished::Stopped,
        default(budget) => Unfinished::Overran,
    };
    if let Some(helper) = slot.take() {
        give_up(&helper);
    }
    Err(unfinished)
}

/// Helpers given up on that still compute.
pub fn overdue() -> usize {
    OVERDUE.load(Ordering::SeqCst)
}

fn spawn_helper() -> Option<Helper> {
    if OVERDUE.load(Ordering::SeqCst) >= MAX_OVERDUE {
        return None;
    }
    let (jobs, inbox) = unbounded::<Job>();
    let tid = Arc::new(AtomicI64::new(-1));
    let given_up = Arc::new(AtomicBool::new(false));
    let (own_tid, own_given_up) = (tid.clone(), given_up.clone());
    let spawned = std::thread::Builder::new()
        .name("codemode-parse".into())
        .stack_size(8 << 20)
        .spawn(move || {
            own_tid.store(current_tid(), Ordering::SeqCst);
            // The work is the caller's own parse: a panic in it is the caller's `Unavailable`.
            while let Ok(job) = inbox.recv() {
                let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
            }
            if own_given_up.load(Ordering::SeqCst) {
                OVERDUE.fetch_sub(1, Ordering::SeqCst);
            }
        });
    spawned.ok().map(|_| Helper {
        jobs,
        tid,
        given_up,
    })
}

/// Counts the helper overdue until its thread ends (dropping `jobs` ends its loop after
/// the job it is in) and lets it compute only on time nobody else wants.
fn give_up(helper: &Helper) {
    OVERDUE.fetch_add(1, Ordering::SeqCst);
    helper.given_up.store(true, Ordering::SeqCst);
    crate::runtime::priority::lower_thread(helper.tid.load(Ordering::SeqCst));
}

#[cfg(target_os = "linux")]
fn current_tid() -> i64 {
    // SAFETY: `gettid` has no preconditions.
    i64::from(unsafe { libc::syscall(libc::SYS_gettid) } as libc::pid_t)
}

#[cfg(not(target_os = "linux"))]
fn current_tid() -> i64 {
    -1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_that_finishes_is_answered_and_work_that_does_not_is_given_up() {
        assert_eq!(run(Duration::from_secs(600), || 6 * 7), Ok(42));

        // Jobs that block until released: a condition, not a time, makes them overrun.
        let (release, held) = bounded::<()>(0);
        let overrun = |held: crossbeam_channel::Receiver<()>| {
            run(Duration::from_millis(1), move || held.recv().is_ok())
        };
        assert_eq!(overrun(held.clone()), Err(Unfinished::Overran));
        assert_eq!(overdue(), 1);
        // A fresh helper serves the next call while the given-up one still computes.
        assert_eq!(run(Duration::from_secs(600), || "next"), Ok("next"));

        // A job over its memory budget is stopped, and answered as such at once.
        let grow =
            || crate::runtime::alloc_budget::with_budget(1 << 20, || vec![1u8; 8 << 20].len());
        assert_eq!(
            run(Duration::from_secs(600), grow),
            Err(Unfinished::Stopped)
        );
        assert_eq!(overdue(), 2);

        while overdue() < MAX_OVERDUE {
            assert_eq!(overrun(held.clone()), Err(Unfinished::Overran));
        }
        // With every overdue slot taken, nothing more starts.
        assert_eq!(
            run(Duration::from_secs(600), || "refused"),
            Err(Unfinished::Unavailable)
        );

        // The blocked ones end once released; the stopped one never does.
        drop((release, held));
        while overdue() > 1 {
            std::thread::yield_now();
        }
        assert_eq!(run(Duration::from_secs(600), || "again"), Ok("again"));
    }
}
