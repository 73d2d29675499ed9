//! A durable run's catalog reads, in both isolation modes: a replay is answered from the
//! ledger (it sees the catalog as the run saw it, whatever changed since), a read with
//! other arguments diverges, reads count toward `maxSnapshotBytes`, and a record that
//! calls a tool the catalog no longer has is refused, naming it, with nothing dispatched.

use crate::common::durable::{approve, first_pending, record_and_close};
use crate::common::hosts::{Answer, Behaviour, FakeHost};
use crate::common::settle::serial;
use crate::common::{run_id, session_with, tool};
use crate::{exec, wait};
use codemode_native::catalog::ToolSpec;
use codemode_native::run::ledger::ReadKind;
use codemode_native::run::record::RunRecord;
use codemode_native::sandbox::isolation::Isolation;
use codemode_native::session::core::SessionCore;
use serde_json::{json, Value};
use std::sync::Arc;

const MODES: [Isolation; 2] = [Isolation::Thread, Isolation::Process];

/// A durable session whose tools have these `(name, description)`s; `ask` suspends, the
/// others echo.
fn durable(
    isolation: Isolation,
    id: &str,
    tools: &[(&str, &str)],
    limits: Value,
) -> (Arc<SessionCore>, Arc<FakeHost>) {
    let host = FakeHost::new(Behaviour::Now(Answer::Echo))
        .on("ask", Behaviour::Suspend("{}".into()))
        .shared();
    let specs: Vec<ToolSpec> = tools
        .iter()
        .map(|(name, description)| ToolSpec {
            description: (*description).to_string(),
            ..tool(name)
        })
        .collect();
    let session = session_with(isolation, id, limits, specs, host.clone(), true);
    (session, host)
}

const BEFORE: [(&str, &str); 3] = [
    ("forecast", "Weather forecast for a city."),
    ("quote", "Stock quote for a ticker."),
    ("ask", "Asks a person."),
];

/// The same tools after a deploy: descriptions changed, so a live search for "weather"
/// now finds `umbrella` and not `forecast`.
const AFTER: [(&str, &str); 4] = [
    ("forecast", "Temperatures."),
    ("quote", "Stock quote for a ticker."),
    ("umbrella", "Weather umbrella advice."),
    ("ask", "Asks a person."),
];

const SEARCH_THEN_CALL: &str = r#"
    const found = await catalog.search("weather", { limit: 2 });
    const names = found.map((h) => h.toolName);
    const described = (await found[0].describe()).description;
    const out = await found[0]({ city: "Oslo" });
    const approved = await ask({ names });
    return { names, description: found[0].description, described, city: out.echo.city, approved };
"#;

/// Parks `SEARCH_THEN_CALL` in a session with the `BEFORE` tools, closes it and answers
/// the approval in the record: all that is left of the run.
fn parked_record(mode: Isolation, id: &str) -> (String, RunRecord) {
    let (a, _) = durable(mode, id, &BEFORE, json!({ "timeoutMs": 60_000 }));
    let parked = exec(&a, SEARCH_THEN_CALL);
    assert_eq!(parked["status"], "waiting", "{mode:?}: {parked}");
    let run = run_id(&parked);
    let ask_id = first_pending(&parked);
    let mut record = record_and_close(&a, &run);
    approve(&mut record, &ask_id, "true");
    (run, record)
}

#[test]
fn a_replay_sees_the_search_and_descriptions_the_run_saw_after_the_catalog_changed() {
    let _serial = serial();
    for mode in MODES {
        let id = format!("reads-replay-{mode:?}");
        let (run, record) = parked_record(mode, &id);
        let kinds: Vec<ReadKind> = record.ledger.reads.iter().map(|r| r.kind).collect();
        assert_eq!(
            kinds,
            [
                ReadKind::Search,
                ReadKind::ToolMeta,
                ReadKind::Describe,
                ReadKind::ToolMeta
            ],
            "the search, forecast's handle, its description, ask's handle"
        );
        let (b, b_host) = durable(mode, &id, &AFTER, json!({ "timeoutMs": 60_000 }));
        b.adopt(&run, record).expect("adopted");
        let done = wait(&b, &run);
        assert_eq!(done["status"], "completed", "{mode:?}: {done}");
        assert_eq!(
            done["value"],
            json!({
                "names": ["forecast"],
                "description": "Weather forecast for a city.",
                "described": "Weather forecast for a city.",
                "city": "Oslo",
                "approved": true,
            }),
            "{mode:?}"
        );
        assert!(
            b_host.calls().is_empty(),
            "{mode:?}: nothing dispatched again"
        );
        // A new run in the changed catalog reads it live.
        let live = exec(
            &b,
            r#"return (await catalog.search("weather", { limit: 1 })).map((h) => h.toolName);"#,
        );
        assert_eq!(live["value"], json!(["umbrella"]), "{mode:?}: {live}");
        b.close();
    }
}

#[test]
fn a_record_calling_a_tool_the_catalog_no_longer_has_is_refused_naming_it() {
    let _serial = serial();
    for mode in MODES {
        let id = format!("reads-removed-{mode:?}");
        let (run, record) = parked_record(mode, &id);
        let without: Vec<(&str, &str)> = AFTER
            .iter()
            .copied()
            .filter(|(name, _)| *name != "forecast")
            .collect();
        let (b, b_host) = durable(mode, &id, &without, json!({ "timeoutMs": 60_000 }));
        let refused = b.adopt(&run, record).unwrap_err();
        assert_eq!(refused.code.as_str(), "replay_divergence", "{refused:?}");
        assert!(
            refused
                .message
                .contains("the run's call #1 was to forecast, which the catalog no longer has"),
            "{refused:?}"
        );
        assert!(!b.holds(&run), "{mode:?}: nothing runs");
        assert!(b_host.calls().is_empty(), "{mode:?}: nothing dispatched");
        b.close();
    }
}

#[test]
fn a_read_with_other_arguments_at_the_same_position_diverges_and_dispatches_nothing() {
    let _serial = serial();
    for mode in MODES {
        let id = format!("reads-diverge-{mode:?}");
        let (run, mut record) = parked_record(mode, &id);
        record.ledger.reads[0].args = r#"["rain",2]"#.into();
        let (b, b_host) = durable(mode, &id, &BEFORE, json!({ "timeoutMs": 60_000 }));
        b.adopt(&run, record).expect("adopted");
        let failed = wait(&b, &run);
        assert_eq!(failed["status"], "failed", "{mode:?}: {failed}");
        assert_eq!(failed["code"], "replay_divergence", "{failed}");
        let message = failed["error"].as_str().unwrap_or_default();
        assert!(
            message.contains(r#"catalog read #1 was catalog.search("rain",2) and is now catalog.search("weather",2)"#),
            "{message}"
        );
        assert!(b_host.calls().is_empty(), "{mode:?}: nothing dispatched");
        b.close();
    }
}

#[test]
fn catalog_reads_count_toward_max_snapshot_bytes() {
    let _serial = serial();
    for mode in MODES {
        let id = format!("reads-cap-{mode:?}");
        let limits = json!({ "timeoutMs": 60_000, "maxSnapshotBytes": 65_536 });
        let (s, host) = durable(mode, &id, &BEFORE, limits);
        let failed = exec(
            &s,
            "const q = 'weather '.repeat(60); for (;;) await catalog.search(q);",
        );
        assert_eq!(
            failed["code"], "snapshot_limit_exceeded",
            "{mode:?}: {failed}"
        );
        assert!(host.calls().is_empty());
        s.close();
    }
}
