//! The sandbox process of `isolation: "process"`: started by the addon, never by hand.
//! Argument: how many commands may run at once.

fn main() {
    let executors = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(2);
    std::process::exit(codemode_native::sandbox::child::serve(executors));
}
