//! Timing and leak probes of the engine: they print figures and assert nothing, so they
//! live here rather than in tests/. `npm run bench:probes -- <probe>`; see bench/README.md.

#[path = "../../tests/common/mod.rs"]
mod common;
mod hosts;
mod leak;
mod timing;

/// A probe's name on the command line and its body, which takes the remaining arguments.
type Probe = (&'static str, fn(&[String]));

const PROBES: [Probe; 8] = [
    ("trivial-cells", timing::trivial_cells),
    ("phases", timing::phases),
    ("nested-call", timing::nested_call_cost),
    ("record-previews", timing::record_previews),
    ("large-catalog", timing::large_catalog),
    ("determinism", timing::determinism),
    ("leak", leak::vm_and_exec),
    ("mixed-leak", leak::mixed),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(name) = args.first() else {
        return usage();
    };
    match PROBES.iter().find(|(probe, _)| probe == name) {
        Some((_, run)) => run(&args[1..]),
        None => usage(),
    }
}

fn usage() {
    let names: Vec<&str> = PROBES.iter().map(|(name, _)| *name).collect();
    eprintln!("usage: probes <{}> [args]", names.join("|"));
    eprintln!("large-catalog takes the path of a {{\"tools\": [...]}} JSON file");
    std::process::exit(2);
}
