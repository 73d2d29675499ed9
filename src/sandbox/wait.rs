//! Waiting for the other side of the pipe: most answers come within microseconds (a
//! catalog query, a tool call's id), so spinning briefly first spares a futex sleep and
//! wake-up on each side of every round trip.

use crossbeam_channel::{Receiver, TryRecvError};
use std::time::{Duration, Instant};

const SPIN: Duration = Duration::from_micros(50);

/// The next message, or `None` once the channel is disconnected.
pub fn spin_then_recv<T>(channel: &Receiver<T>) -> Option<T> {
    let until = Instant::now() + SPIN;
    loop {
        match channel.try_recv() {
            Ok(message) => return Some(message),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) if Instant::now() < until => std::hint::spin_loop(),
            Err(TryRecvError::Empty) => return channel.recv().ok(),
        }
    }
}
