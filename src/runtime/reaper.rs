//! Frees finished VMs on a guest-priority thread when they finish on the Node thread
//! (`cancelRun`, `close()`) or the timer thread (a parked run expiring), so freeing a
//! QuickJS heap never costs the gateway's own threads. Workers free their own VMs.

use crossbeam_channel::{unbounded, Sender};
use std::sync::OnceLock;

type Remains = Box<dyn Send>;

fn reaper() -> Option<&'static Sender<Remains>> {
    static SENDER: OnceLock<Option<Sender<Remains>>> = OnceLock::new();
    SENDER
        .get_or_init(|| {
            let (sender, receiver) = unbounded::<Remains>();
            let spawned =
                crate::runtime::pool::spawn_guest_thread("codemode-reaper".into(), move || {
                    while let Ok(remains) = receiver.recv() {
                        let free = std::panic::AssertUnwindSafe(|| drop(remains));
                        let _ = std::panic::catch_unwind(free);
                        crate::runtime::priority::offer_core();
                    }
                });
            spawned.ok().map(|_| sender)
        })
        .as_ref()
}

/// Drops `value` now on a guest thread, else hands it to the reaper (or drops it now if
/// the reaper could not start: a missing thread must not leak heaps).
pub fn discard<T: Send + 'static>(value: T) {
    if crate::runtime::priority::is_guest_thread() {
        drop(value);
        return;
    }
    match reaper() {
        Some(sender) => {
            if let Err(returned) = sender.send(Box::new(value)) {
                drop(returned.into_inner());
            }
        }
        None => drop(value),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    /// Reports the name of the thread that drops it.
    struct Witness(mpsc::Sender<Option<String>>);

    impl Drop for Witness {
        fn drop(&mut self) {
            let name = std::thread::current().name().map(str::to_string);
            let _ = self.0.send(name);
        }
    }

    #[test]
    fn a_value_discarded_off_guest_threads_is_dropped_by_the_reaper() {
        let (sender, receiver) = mpsc::channel();
        std::thread::spawn(move || super::discard(Witness(sender)))
            .join()
            .unwrap();
        let dropper = receiver.recv_timeout(std::time::Duration::from_secs(5));
        assert_eq!(dropper, Ok(Some("codemode-reaper".to_string())));
    }

    #[test]
    fn a_guest_thread_drops_what_it_discards_itself() {
        let (sender, receiver) = mpsc::channel();
        std::thread::Builder::new()
            .name("guest".into())
            .spawn(move || {
                crate::runtime::priority::lower_current_thread();
                super::discard(Witness(sender));
            })
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(receiver.try_recv(), Ok(Some("guest".to_string())));
    }
}
