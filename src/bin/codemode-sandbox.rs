//! The sandbox process of `isolation: "process"`: started by the addon, never by hand.
//! Arguments: `<executors> <parent_pid> <data_limit_bytes>` (see `sandbox::child::Args`).

use codemode_native::sandbox::child;

fn main() {
    let args = child::Args::parse(std::env::args().skip(1));
    std::process::exit(child::serve(args));
}
