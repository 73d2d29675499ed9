use super::super::{Journal, Ledger};
use super::ReadKind;

/// A live run that searched, then read a description that was refused.
fn recorded() -> Ledger {
    let mut journal = Journal::default();
    assert_eq!(
        journal.recorded_read(ReadKind::Search, r#"["w",0]"#),
        Ok(None)
    );
    journal.record_read(
        ReadKind::Search,
        r#"["w",0]"#,
        &Ok(r#"["forecast"]"#.into()),
    );
    assert_eq!(
        journal.recorded_read(ReadKind::Describe, r#"["nope"]"#),
        Ok(None)
    );
    journal.record_read(
        ReadKind::Describe,
        r#"["nope"]"#,
        &Err("Unknown catalog function: nope.".into()),
    );
    journal.ledger().clone()
}

#[test]
fn a_replay_is_answered_from_the_record_in_order_then_reads_live() {
    let mut journal = Journal::replay(recorded(), 0.0);
    assert_eq!(
        journal.recorded_read(ReadKind::Search, r#"["w",0]"#),
        Ok(Some(Ok(r#"["forecast"]"#.into())))
    );
    assert_eq!(
        journal.recorded_read(ReadKind::Describe, r#"["nope"]"#),
        Ok(Some(Err("Unknown catalog function: nope.".into()))),
        "a refused read is refused again with the same message"
    );
    assert_eq!(
        journal.recorded_read(ReadKind::ApiList, r#"[""]"#),
        Ok(None)
    );
    journal.record_read(ReadKind::ApiList, r#"[""]"#, &Ok(r#"{"files":[]}"#.into()));
    assert_eq!(journal.ledger().reads.len(), 3);
}

#[test]
fn a_read_of_another_kind_or_with_other_arguments_diverges() {
    let mut other_args = Journal::replay(recorded(), 0.0);
    let error = other_args
        .recorded_read(ReadKind::Search, r#"["rain",0]"#)
        .unwrap_err();
    assert_eq!(
        error,
        r#"the run's catalog read #1 was catalog.search("w",0) and is now catalog.search("rain",0)"#
    );
    let mut other_kind = Journal::replay(recorded(), 0.0);
    let error = other_kind
        .recorded_read(ReadKind::ToolMeta, r#"["w"]"#)
        .unwrap_err();
    assert!(error.contains("is now handle(\"w\")"), "{error}");
}

#[test]
fn a_read_where_the_record_still_has_deliveries_and_no_read_diverges() {
    let mut live = Journal::default();
    live.issue_call(1, "r:1", "a", "{}", false).unwrap();
    live.applied_live(crate::run::ledger::Delivery::Timer {
        id: 9,
        clock_ms: 1.0,
    });
    let mut journal = Journal::replay(live.ledger().clone(), 0.0);
    let error = journal
        .recorded_read(ReadKind::Search, r#"["w",0]"#)
        .unwrap_err();
    assert!(error.contains("where its record has none"), "{error}");
}

#[test]
fn reads_count_in_the_ledger_bytes_and_survive_a_round_trip() {
    let empty = Journal::default().bytes();
    let ledger = recorded();
    let journal = Journal::replay(ledger.clone(), 0.0);
    let texts = r#"["w",0]["forecast"]["nope"]Unknown catalog function: nope."#.len();
    assert_eq!(journal.bytes(), empty + 2 * super::ENTRY_BYTES + texts);
    let text = serde_json::to_string(&ledger).unwrap();
    assert!(text.contains(r#""r":[{"k":"s","a":"[\"w\",0]""#), "{text}");
    assert!(text.contains(r#""e":true"#), "{text}");
    let back: Ledger = serde_json::from_str(&text).unwrap();
    assert_eq!(back, ledger);
    // A ledger without reads (a record written before they were kept) has no "r" key.
    let without = serde_json::to_string(&Ledger::default()).unwrap();
    assert!(!without.contains("\"r\""), "{without}");
    assert_eq!(
        serde_json::from_str::<Ledger>(&without).unwrap(),
        Ledger::default()
    );
}

#[test]
fn a_call_or_timer_past_the_record_with_reads_left_diverges() {
    let mut live = Journal::default();
    live.issue_call(1, "r:1", "a", "{}", false).unwrap();
    live.record_read(ReadKind::Search, r#"["w",0]"#, &Ok("[]".into()));
    let mut journal = Journal::replay(live.ledger().clone(), 0.0);
    assert_eq!(
        journal.reads_done_before(true, "a call (a)"),
        Ok(()),
        "a recorded call"
    );
    journal.issue_call(1, "r:1", "a", "{}", false).unwrap();
    let error = journal.reads_done_before(true, "a call (b)").unwrap_err();
    assert_eq!(
        error,
        r#"the run now makes a call (b) where its record has catalog read #1 (catalog.search("w",0))"#
    );
    assert!(journal.reads_done_before(false, "a timer").is_err());
    assert!(journal
        .recorded_read(ReadKind::Search, r#"["w",0]"#)
        .is_ok());
    assert_eq!(journal.reads_done_before(true, "a call (b)"), Ok(()));
}
