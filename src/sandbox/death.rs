//! How a sandbox process ended, in words for the runs it held: what it did that got it
//! killed, or its exit status and the `Fatal` message it sent (why it could not start).

use super::shared::Shared;
use std::process::ExitStatus;

/// The death message of a reaped process.
pub(super) fn describe(shared: &Shared, status: std::io::Result<ExitStatus>) -> String {
    if let Some(what) = shared.violation.get() {
        return format!("code mode sandbox process {what} and was killed");
    }
    let status = match status {
        Ok(status) => status,
        Err(error) => return format!("code mode sandbox process was lost ({error})"),
    };
    let ended = from_status(status);
    match shared.fatal.get() {
        Some(line) => format!("{ended}: {line}"),
        None => ended,
    }
}

fn from_status(status: ExitStatus) -> String {
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&status);
    #[cfg(not(unix))]
    let signal: Option<i32> = None;
    match (signal, status.code()) {
        (Some(signal), _) => format!(
            "code mode sandbox process crashed ({})",
            signal_name(signal)
        ),
        (None, Some(super::wire::EXIT_PARSE_OVERRUN)) => {
            "code mode sandbox process ended: a cell's source was too complex to parse".into()
        }
        (None, Some(code)) => format!("code mode sandbox process exited with status {code}"),
        (None, None) => "code mode sandbox process ended".into(),
    }
}

#[cfg(not(unix))]
fn signal_name(signal: i32) -> String {
    format!("signal {signal}")
}

#[cfg(unix)]
fn signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGKILL => "SIGKILL",
        libc::SIGSYS => "SIGSYS",
        libc::SIGBUS => "SIGBUS",
        libc::SIGILL => "SIGILL",
        libc::SIGFPE => "SIGFPE",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        other => return format!("signal {other}"),
    };
    name.into()
}

/// At most 200 characters of a message the sandbox had a hand in.
pub(super) fn clip(text: &str) -> String {
    let mut clipped: String = text
        .chars()
        .take(200)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if text.chars().nth(200).is_some() {
        clipped.push('…');
    }
    clipped
}
