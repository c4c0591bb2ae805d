//! JIRA issue types as a commit rule of the git source (`source.git.issue_types`), the
//! JIRA twin of `issue_labels`: which JIRA keys a commit message references, and what
//! JIRA's REST API says their types are.

pub mod client;
pub mod keys;
