//! Declared contracts of trusted (core) tools: the input is validated against
//! `parameters` before the host runs the tool, the result against `outputSchema` after.
//! Schemas compile once per tool (on first call) with the `jsonschema` crate.

use crate::run::protocol::HostFailure;
use parking_lot::Mutex;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

enum Schema {
    None,
    Valid(Box<jsonschema::Validator>),
    Invalid,
}

impl Schema {
    fn compile(schema: Option<&Value>) -> Schema {
        match schema {
            None => Schema::None,
            Some(schema) => match jsonschema::validator_for(schema) {
                Ok(validator) => Schema::Valid(Box::new(validator)),
                Err(_) => Schema::Invalid,
            },
        }
    }
}

/// The compiled contracts of one tool. Its failures name the tool as the guest called
/// it (host ids never reach the guest).
pub struct ToolContracts {
    input: Schema,
    output: Schema,
}

impl ToolContracts {
    /// Contracts for a tool; client tools (untrusted schemas) get none.
    pub fn new(trusted: bool, parameters: Option<&Value>, output_schema: Option<&Value>) -> Self {
        let (input, output) = if trusted {
            (Schema::compile(parameters), Schema::compile(output_schema))
        } else {
            (Schema::None, Schema::None)
        };
        ToolContracts { input, output }
    }

    /// Before dispatch: a failure means the tool must not run.
    pub fn check_input(&self, callable: &str, input_json: &str) -> Result<(), HostFailure> {
        if matches!(self.output, Schema::Invalid) {
            return Err(HostFailure {
                message: format!("Tool \"{callable}\" has an invalid outputSchema."),
                code: "output_contract",
            });
        }
        match &self.input {
            Schema::None => Ok(()),
            Schema::Invalid => Err(HostFailure {
                message: format!("Tool \"{}\" has an invalid parameters schema.", callable),
                code: "input_contract",
            }),
            Schema::Valid(validator) => {
                let input: Value = serde_json::from_str(input_json).unwrap_or(Value::Null);
                match validator.validate(&input) {
                    Ok(()) => Ok(()),
                    Err(error) => Err(HostFailure {
                        message: format!(
                            "Tool \"{}\" input does not match its parameters schema: {}",
                            callable,
                            bounded(&error.to_string())
                        ),
                        code: "input_contract",
                    }),
                }
            }
        }
    }

    /// After the host answered: the value never appears in the message.
    pub fn check_output(&self, callable: &str, output_json: &str) -> Result<(), HostFailure> {
        let Schema::Valid(validator) = &self.output else {
            return Ok(());
        };
        let output: Value = serde_json::from_str(output_json).unwrap_or(Value::Null);
        if validator.is_valid(&output) {
            Ok(())
        } else {
            Err(HostFailure {
                message: format!(
                    "Tool \"{}\" returned details that do not match its declared outputSchema.",
                    callable
                ),
                code: "output_contract",
            })
        }
    }
}

fn bounded(text: &str) -> String {
    const MAX: usize = 300;
    if text.len() <= MAX {
        return text.to_string();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// Per-session cache of compiled contracts, by host tool index.
#[derive(Default)]
pub struct ContractCache {
    compiled: Mutex<HashMap<usize, Arc<ToolContracts>>>,
}

impl ContractCache {
    pub fn get_or_compile(
        &self,
        host_index: usize,
        compile: impl FnOnce() -> ToolContracts,
    ) -> Arc<ToolContracts> {
        if let Some(found) = self.compiled.lock().get(&host_index) {
            return found.clone();
        }
        let compiled = Arc::new(compile());
        self.compiled.lock().insert(host_index, compiled.clone());
        compiled
    }

    pub fn get(&self, host_index: usize) -> Option<Arc<ToolContracts>> {
        self.compiled.lock().get(&host_index).cloned()
    }

    pub fn forget(&self, host_index: usize) {
        self.compiled.lock().remove(&host_index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn input_that_breaks_the_schema_is_refused() {
        let schema =
            json!({"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]});
        let contracts = ToolContracts::new(true, Some(&schema), None);
        assert!(contracts.check_input("t", r#"{"a":1}"#).is_ok());
        let failure = contracts.check_input("t", r#"{"a":"x"}"#).err();
        assert_eq!(failure.map(|f| f.code), Some("input_contract"));
    }

    #[test]
    fn output_mismatch_names_the_tool_but_not_the_value() {
        let schema = json!({"type":"object","properties":{"id":{"type":"string"}},"required":["id"],"additionalProperties":false});
        let contracts = ToolContracts::new(true, None, Some(&schema));
        let failure = contracts
            .check_output("lookup", r#"{"secret":"hunter2"}"#)
            .err();
        assert_eq!(
            failure.map(|f| f.message),
            Some(
                "Tool \"lookup\" returned details that do not match its declared outputSchema."
                    .to_string()
            )
        );
    }

    #[test]
    fn an_invalid_output_schema_stops_the_tool_before_it_runs() {
        let schema = json!({"type": 12});
        let contracts = ToolContracts::new(true, None, Some(&schema));
        let failure = contracts.check_input("bad", "{}").err();
        assert_eq!(
            failure.map(|f| f.message),
            Some("Tool \"bad\" has an invalid outputSchema.".to_string())
        );
    }

    #[test]
    fn client_tools_carry_no_contracts() {
        let schema = json!({"type":"object","required":["a"]});
        let contracts = ToolContracts::new(false, Some(&schema), Some(&schema));
        assert!(contracts.check_input("c", "{}").is_ok());
        assert!(contracts.check_output("c", "1").is_ok());
    }
}
