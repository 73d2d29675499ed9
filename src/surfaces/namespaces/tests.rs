use super::*;
use serde_json::{json, Value};

/// `validate` over the JSON the glue would send for the `namespaces` option.
fn check(namespaces: Value) -> Result<Vec<NamespaceJson>, String> {
    let list: Option<Vec<Option<NamespaceRead>>> =
        serde_json::from_value(namespaces).map_err(|e| e.to_string())?;
    validate(list)
}

fn ns(name: &str) -> Value {
    json!({ "globalName": name, "description": "", "prompt": "", "leaves": [{ "path": ["issues", "list"], "hostIndex": 3 }] })
}

fn error(namespaces: Value) -> String {
    check(namespaces).err().unwrap_or_default()
}

#[test]
fn namespace_names_are_validated_with_clear_messages() {
    let cases = [
        (json!([ns("my-repo")]), "namespaces[0].globalName \"my-repo\" must be a JavaScript identifier."),
        (json!([ns("class")]), "namespaces[0].globalName \"class\" is a JavaScript reserved word and cannot be a namespace."),
        (json!([ns("MCP")]), "namespaces[0].globalName \"MCP\" is a code mode runtime global and cannot be a namespace."),
        (json!([ns("Math")]), "namespaces[0].globalName \"Math\" is a JavaScript built-in and cannot be a namespace."),
        (json!([ns("Repo"), ns("Repo")]), "namespaces[1].globalName \"Repo\" is used by more than one namespace."),
    ];
    for (namespaces, message) in cases {
        assert_eq!(error(namespaces), message);
    }
}

#[test]
fn the_option_and_each_entry_must_have_the_right_shape() {
    assert_eq!(
        error(Value::Null),
        "namespaces must be an array of namespace definitions."
    );
    assert_eq!(error(json!([null])), "namespaces[0] must be an object.");
    let mut named = ns("A");
    named["globalName"] = Value::Null;
    assert_eq!(
        error(json!([ns("Ok"), named])),
        "namespaces[1].globalName must be a string."
    );
    let mut scoped = ns("A");
    scoped["leaves"] = Value::Null;
    assert_eq!(
        error(json!([scoped])),
        "namespaces[0].scope must be an object whose leaves are functions."
    );
    for field in ["description", "prompt"] {
        let mut texts = ns("A");
        texts[field] = Value::Null;
        assert_eq!(
            error(json!([texts])),
            format!("namespaces[0].{field} must be a string.")
        );
    }
}

#[test]
fn namespaces_are_limited_in_depth_and_in_number_of_functions() {
    let mut deep = ns("D");
    deep["tooDeep"] = json!("namespaces[0].scope.inner");
    assert_eq!(
        error(json!([deep])),
        "namespaces[0].scope.inner is nested more than 8 levels deep."
    );
    let leaves: Vec<Value> = (0..2001)
        .map(|i| json!({ "path": [format!("f{i}")], "hostIndex": i }))
        .collect();
    let mut wide = ns("W");
    wide["leaves"] = Value::Array(leaves);
    assert_eq!(
        error(json!([wide])),
        "namespaces[0].scope has more than 2000 functions."
    );
}

#[test]
fn unsafe_path_segments_are_refused() {
    let mut bad = ns("Repo");
    bad["leaves"] = json!([{ "path": ["constructor"], "hostIndex": 0 }]);
    assert_eq!(
        error(json!([bad])),
        "Invalid code mode namespace path segment: constructor"
    );
}

#[test]
fn absent_description_and_prompt_read_as_empty() {
    let read = check(json!([{ "globalName": "Repo", "leaves": [] }])).unwrap_or_default();
    let texts: Vec<_> = read
        .iter()
        .map(|n| {
            (
                n.global_name.as_str(),
                n.description.as_str(),
                n.prompt.as_str(),
            )
        })
        .collect();
    assert_eq!(texts, [("Repo", "", "")]);
}
