//! Finds credential literals in a parsed cell: expression-free string or template literals
//! that initialise, are assigned to, default or are compared with a credential-named binding
//! or property, and the value after a credential-named string argument (docs/design.md).

use super::names::is_sensitive_name;
use crate::source::program::{self, Language};
use oxc::ast::ast::{
    Argument, ArrayExpression, ArrayExpressionElement, AssignmentExpression, AssignmentPattern,
    BinaryExpression, CallExpression, Expression, FormalParameter, ObjectProperty,
    PropertyDefinition, VariableDeclarator,
};
use oxc::ast_visit::{walk, Visit};

/// Byte ranges (inside the quotes) of credential literals, or `None` when the source
/// does not parse as TypeScript or JavaScript.
pub fn credential_literal_spans(source: &str) -> Option<Vec<(usize, usize)>> {
    // TypeScript first (a superset for nearly every cell); JavaScript when TypeScript
    // cannot recover, e.g. for `a < b > c` that only reads as JavaScript.
    [Language::TypeScript, Language::JavaScript]
        .into_iter()
        .find_map(|language| {
            program::with_parsed(source, language, |_, parsed| {
                if !parsed.diagnostics.is_empty() {
                    return Ok(None);
                }
                let mut finder = Finder::default();
                finder.visit_program(&parsed.program);
                Ok(Some(finder.spans))
            })
            .ok()
            .flatten()
        })
}

#[derive(Default)]
struct Finder {
    spans: Vec<(usize, usize)>,
}

impl Finder {
    fn mask_if(&mut self, name: Option<&str>, value: &Expression<'_>) {
        if name.is_some_and(is_sensitive_name) {
            self.mask_literals(value);
        }
    }

    /// Masks the literal parts of a value expression (never calls, identifiers, numbers).
    fn mask_literals(&mut self, value: &Expression<'_>) {
        match value.get_inner_expression() {
            Expression::StringLiteral(lit) => self.push(lit.span.start, lit.span.end),
            Expression::TemplateLiteral(t) if t.expressions.is_empty() => {
                self.push(t.span.start, t.span.end)
            }
            Expression::LogicalExpression(e) => {
                self.mask_literals(&e.left);
                self.mask_literals(&e.right);
            }
            Expression::ConditionalExpression(e) => {
                self.mask_literals(&e.consequent);
                self.mask_literals(&e.alternate);
            }
            Expression::ArrayExpression(array) => {
                for element in &array.elements {
                    if let Some(e) = element.as_expression() {
                        self.mask_literals(e);
                    }
                }
            }
            _ => {}
        }
    }

    /// A literal spanning `start..end` including its delimiters; empty ones stay.
    fn push(&mut self, start: u32, end: u32) {
        let (start, end) = (start as usize + 1, (end as usize).saturating_sub(1));
        if start < end {
            self.spans.push((start, end));
        }
    }
}

/// The name an expression reads: an identifier or a static member property.
fn expression_name<'a>(e: &Expression<'a>) -> Option<&'a str> {
    match e.get_inner_expression() {
        Expression::Identifier(id) => Some(id.name.as_str()),
        other => other.as_member_expression()?.static_property_name(),
    }
}

fn string_value<'a>(arg: &Argument<'a>) -> Option<&'a str> {
    match arg.as_expression()?.get_inner_expression() {
        Expression::StringLiteral(lit) => Some(lit.value.as_str()),
        _ => None,
    }
}

impl<'a> Visit<'a> for Finder {
    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        if let Some(init) = &it.init {
            let name = it.id.get_identifier_name();
            self.mask_if(name.as_ref().map(|n| n.as_str()), init);
        }
        walk::walk_variable_declarator(self, it);
    }

    fn visit_object_property(&mut self, it: &ObjectProperty<'a>) {
        let name = it.key.static_name();
        self.mask_if(name.as_deref(), &it.value);
        walk::walk_object_property(self, it);
    }

    fn visit_property_definition(&mut self, it: &PropertyDefinition<'a>) {
        if let Some(value) = &it.value {
            let name = it.key.static_name();
            self.mask_if(name.as_deref(), value);
        }
        walk::walk_property_definition(self, it);
    }

    fn visit_assignment_expression(&mut self, it: &AssignmentExpression<'a>) {
        self.mask_if(it.left.get_identifier_name(), &it.right);
        walk::walk_assignment_expression(self, it);
    }

    fn visit_assignment_pattern(&mut self, it: &AssignmentPattern<'a>) {
        let name = it.left.get_identifier_name();
        self.mask_if(name.as_ref().map(|n| n.as_str()), &it.right);
        walk::walk_assignment_pattern(self, it);
    }

    fn visit_formal_parameter(&mut self, it: &FormalParameter<'a>) {
        if let Some(init) = &it.initializer {
            let name = it.pattern.get_identifier_name();
            self.mask_if(name.as_ref().map(|n| n.as_str()), init);
        }
        walk::walk_formal_parameter(self, it);
    }

    fn visit_binary_expression(&mut self, it: &BinaryExpression<'a>) {
        if it.operator.is_equality() {
            self.mask_if(expression_name(&it.left), &it.right);
            self.mask_if(expression_name(&it.right), &it.left);
        }
        walk::walk_binary_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        for pair in it.arguments.windows(2) {
            if let Some(value) = pair[1].as_expression() {
                self.mask_if(string_value(&pair[0]), value);
            }
        }
        walk::walk_call_expression(self, it);
    }

    /// `["Authorization", "Bearer …"]` pairs (header lists, `Object.fromEntries`).
    fn visit_array_expression(&mut self, it: &ArrayExpression<'a>) {
        if let [ArrayExpressionElement::StringLiteral(key), value] = it.elements.as_slice() {
            if let Some(value) = value.as_expression() {
                self.mask_if(Some(key.value.as_str()), value);
            }
        }
        walk::walk_array_expression(self, it);
    }
}
