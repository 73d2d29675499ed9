use super::*;

fn reply(bridge_id: u32, payload: &str, clock_ms: f64) -> Delivery {
    Delivery::Reply {
        bridge_id,
        outcome: Outcome {
            ok: true,
            payload: payload.to_string(),
        },
        clock_ms,
    }
}

/// Two calls issued, the second answered first, a timer fired: the record of a live run.
fn recorded() -> Ledger {
    let mut journal = Journal::default();
    assert_eq!(
        journal.issue_call(1, "r:1", "a", r#"{"x":1,"y":2}"#, false),
        Ok(Issued::Live)
    );
    assert_eq!(
        journal.issue_call(2, "r:2", "b", "{}", true),
        Ok(Issued::Live)
    );
    assert_eq!(journal.issue_timer(1, 50, 1000.0), Ok(Issued::Live));
    journal.applied_live(reply(2, "\"b\"", 1001.0));
    journal.applied_live(Delivery::Timer {
        id: 1,
        clock_ms: 1050.0,
    });
    journal.applied_live(reply(1, "\"a\"", 1060.0));
    assert!(!journal.replaying());
    journal.ledger().clone()
}

#[test]
fn a_replay_that_issues_the_same_calls_gets_the_recorded_deliveries_in_order() {
    let mut journal = Journal::replay(recorded(), 0.0);
    assert!(journal.replaying());
    // Key order of the input does not matter.
    assert_eq!(
        journal.issue_call(1, "r:1", "a", r#"{"y":2,"x":1}"#, false),
        Ok(Issued::Recorded)
    );
    assert_eq!(
        journal.issue_call(2, "r:2", "b", "{}", true),
        Ok(Issued::Recorded)
    );
    assert_eq!(journal.issue_timer(1, 50, 0.0), Ok(Issued::Recorded));
    let mut order = Vec::new();
    while let Some(next) = journal.next_recorded().cloned() {
        order.push(next.clock_ms());
        journal.applied_recorded();
    }
    assert_eq!(order, [1001.0, 1050.0, 1060.0]);
    assert!(!journal.replaying() && journal.caught_up());
    // After the record, calls are live and appended.
    assert_eq!(
        journal.issue_call(3, "r:3", "c", "1", false),
        Ok(Issued::Live)
    );
    assert_eq!(journal.ledger().calls.len(), 3);
}

#[test]
fn another_tool_other_arguments_or_an_extra_call_diverge() {
    let mut other_tool = Journal::replay(recorded(), 0.0);
    let error = other_tool
        .issue_call(1, "r:1", "z", "{}", false)
        .unwrap_err();
    assert!(
        error.contains("call #1 was a(...) and is now z(...)"),
        "{error}"
    );

    let mut other_input = Journal::replay(recorded(), 0.0);
    let error = other_input
        .issue_call(1, "r:1", "a", r#"{"x":2,"y":2}"#, false)
        .unwrap_err();
    assert!(error.contains("other arguments"), "{error}");

    let mut extra = Journal::replay(recorded(), 0.0);
    extra
        .issue_call(1, "r:1", "a", r#"{"x":1,"y":2}"#, false)
        .unwrap();
    extra.issue_call(2, "r:2", "b", "{}", true).unwrap();
    let error = extra.issue_call(3, "r:3", "c", "{}", true).unwrap_err();
    assert!(error.contains("where its record has none"), "{error}");

    let mut other_timer = Journal::replay(recorded(), 0.0);
    let error = other_timer.issue_timer(1, 51, 0.0).unwrap_err();
    assert!(
        error.contains("waited 50 ms and now waits 51 ms"),
        "{error}"
    );
}

#[test]
fn calls_and_timers_still_out_at_the_record_are_undelivered() {
    let mut live = Journal::default();
    live.issue_call(1, "r:1", "a", "1", false).unwrap();
    live.issue_call(2, "r:2", "held", "2", false).unwrap();
    live.issue_timer(1, 10_000, 5.0).unwrap();
    live.applied_live(reply(1, "1", 6.0));
    let mut journal = Journal::replay(live.ledger().clone(), 0.0);
    journal.issue_call(1, "r:1", "a", "1", false).unwrap();
    journal.issue_call(2, "r:2", "held", "2", false).unwrap();
    journal.issue_timer(1, 10_000, 0.0).unwrap();
    journal.applied_recorded();
    let (calls, timers) = journal.undelivered();
    assert_eq!(calls.iter().map(|c| c.bridge_id).collect::<Vec<_>>(), [2]);
    assert_eq!(timers.iter().map(|t| t.id).collect::<Vec<_>>(), [1]);
}

#[test]
fn a_call_made_live_after_the_record_is_not_among_the_undelivered() {
    let mut live = Journal::default();
    live.issue_call(1, "r:1", "pay", "1", false).unwrap();
    let mut journal = Journal::replay(live.ledger().clone(), 0.0);
    journal.issue_call(1, "r:1", "pay", "1", false).unwrap();
    assert_eq!(
        journal.issue_call(2, "r:2", "lookup", "2", true),
        Ok(Issued::Live)
    );
    let (calls, _) = journal.undelivered();
    assert_eq!(calls.iter().map(|c| c.bridge_id).collect::<Vec<_>>(), [1]);
    assert!(journal.caught_up());
}

#[test]
fn an_external_call_takes_one_outcome_and_only_while_undelivered() {
    let mut journal = Journal::default();
    journal.issue_call(1, "r:1", "ask", "{}", false).unwrap();
    journal.issue_call(2, "r:2", "plain", "{}", false).unwrap();
    journal.mark_external(1, r#"{"q":1}"#);
    let yes = Outcome {
        ok: true,
        payload: "true".into(),
    };
    assert!(!journal.resolve_external(2, yes.clone()), "not external");
    assert!(journal.resolve_external(1, yes.clone()));
    assert!(
        !journal.resolve_external(1, yes.clone()),
        "already resolved"
    );
    journal.applied_live(reply(1, "true", 9.0));
    assert_eq!(
        journal.ledger().calls[0].outcome,
        None,
        "delivered: no longer pending"
    );
    assert!(!journal.resolve_external(1, yes), "delivered");
}

#[test]
fn a_ledger_round_trips_through_json() {
    let ledger = recorded();
    let text = serde_json::to_string(&ledger).unwrap();
    assert!(text.contains(r#""e":"r""#), "{text}");
    let back: Ledger = serde_json::from_str(&text).unwrap();
    assert_eq!(back, ledger);
}

#[test]
fn a_refusal_clears_all_accepted_live_and_diverges_while_a_record_that_had_none_replays() {
    let mut live = Journal::replay(Ledger::fresh(), 0.0);
    assert!(live.all_accepted());
    assert_eq!(live.refused_call(), Ok(()));
    assert!(
        !live.all_accepted(),
        "the record now says a call was refused"
    );

    let mut ledger = recorded();
    ledger.all_accepted = true;
    let mut replay = Journal::replay(ledger, 0.0);
    replay
        .issue_call(1, "r:1", "a", r#"{"x":1,"y":2}"#, false)
        .unwrap();
    let why = replay.refused_call().unwrap_err();
    assert!(why.contains("call #2 (b) was refused now"), "{why}");

    // A record that had refusals, or says nothing of them, replays them as it goes.
    let mut unknown = Journal::replay(recorded(), 0.0);
    assert!(!unknown.all_accepted());
    assert_eq!(unknown.refused_call(), Ok(()));
}

#[test]
fn all_accepted_is_written_only_when_known_and_an_older_record_reads_as_unknown() {
    let mut ledger = recorded();
    let text = serde_json::to_string(&ledger).unwrap();
    assert!(!text.contains(r#""a":"#), "{text}");
    let back: Ledger = serde_json::from_str(&text).unwrap();
    assert!(
        !back.all_accepted,
        "a record without the field is not batched"
    );
    ledger.all_accepted = true;
    let text = serde_json::to_string(&ledger).unwrap();
    assert!(text.contains(r#""a":true"#), "{text}");
    assert_eq!(serde_json::from_str::<Ledger>(&text).unwrap(), ledger);
}
