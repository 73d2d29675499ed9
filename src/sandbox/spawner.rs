//! Starts every sandbox process from one thread that lives as long as the gateway: a
//! sandbox's parent-death signal fires when the thread that started it ends, so it must
//! not be a worker that may retire or a `worker_threads` Node thread.

use crossbeam_channel::{Receiver, Sender};
use std::io;
use std::process::{Child, Command};
use std::sync::OnceLock;

type Request = (Command, Sender<io::Result<Child>>);

/// Runs `command` on the spawning thread and returns the child.
pub fn spawn(command: Command) -> io::Result<Child> {
    static REQUESTS: OnceLock<Option<Sender<Request>>> = OnceLock::new();
    let requests = REQUESTS.get_or_init(start).as_ref();
    let Some(requests) = requests else {
        return Err(io::Error::other(
            "the sandbox spawning thread could not start",
        ));
    };
    let (answer, answered) = crossbeam_channel::bounded(1);
    requests
        .send((command, answer))
        .map_err(|_| io::Error::other("the sandbox spawning thread is gone"))?;
    answered
        .recv()
        .map_err(|_| io::Error::other("the sandbox spawning thread is gone"))?
}

fn start() -> Option<Sender<Request>> {
    let (requests, received) = crossbeam_channel::unbounded::<Request>();
    std::thread::Builder::new()
        .name("codemode-sandbox-spawner".into())
        .stack_size(128 * 1024)
        .spawn(move || serve(received))
        .ok()?;
    Some(requests)
}

fn serve(received: Receiver<Request>) {
    // The senders live in a static: this loop ends only with the process.
    while let Ok((mut command, answer)) = received.recv() {
        let _ = answer.send(command.spawn());
    }
}
