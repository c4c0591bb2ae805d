//! Python language table: named nodes minus comments (both shapes), members, statements.

/// Comment kinds, dropped in every shape.
pub const COMMENTS: &[&str] = &["comment"];

/// Members that count as methods for spatial proximity: every function, at any depth.
pub const MEMBERS: &[&str] = &["function_definition"];

/// Type declarations, for a member's display label.
pub const TYPES: &[&str] = &["class_definition"];

/// Statement-like kinds for the `FirstStatement` anchor rule: simple and compound
/// statements plus the clause headers a changed line can start with.
pub const STATEMENTS: &[&str] = &[
    "expression_statement",
    "return_statement",
    "if_statement",
    "elif_clause",
    "else_clause",
    "for_statement",
    "while_statement",
    "try_statement",
    "except_clause",
    "finally_clause",
    "with_statement",
    "match_statement",
    "case_clause",
    "function_definition",
    "class_definition",
    "decorated_definition",
    "import_statement",
    "import_from_statement",
    "future_import_statement",
    "assert_statement",
    "pass_statement",
    "break_statement",
    "continue_statement",
    "raise_statement",
    "global_statement",
    "nonlocal_statement",
    "delete_statement",
    "exec_statement",
    "print_statement",
    "type_alias_statement",
];

/// Module path of a Python file from its directories: the directory segments of a
/// repository-relative path (`a/b/c.py` → `["a", "b"]`), empty and `.` segments skipped.
pub fn python_module_path(path: &str) -> Vec<String> {
    let mut segs: Vec<&str> = path
        .split(['/', '\\'])
        .filter(|s| !s.is_empty() && *s != ".")
        .collect();
    segs.pop();
    segs.into_iter().map(str::to_owned).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_path_is_directories() {
        assert_eq!(python_module_path("a/b/c.py"), vec!["a", "b"]);
        assert_eq!(python_module_path("./pkg//mod.py"), vec!["pkg"]);
        assert!(python_module_path("setup.py").is_empty());
    }
}
