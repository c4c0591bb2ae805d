//! The command line's names for the data contract's enums: `clap::ValueEnum` for each,
//! built from the library's names (the same ones `FromStr` accepts), with the help text
//! `--help` shows beside each possible value.

use crate::annotate::divergence::Profile;
use crate::annotate::proximity::PackageRule;
use crate::dataset::export::ListStyle;
use crate::evaluate::predictions::Baseline;
use crate::model::{Scenario, StateKind};
use crate::run::d4j::ToolAction;
use crate::run::PromptVariant;
use clap::builder::PossibleValue;
use clap::ValueEnum;

/// `ValueEnum` for a library enum from its `ALL`, its name function and one help line per
/// value (the variant's doc summary).
macro_rules! value_enum {
    ($ty:ty, $name:ident, { $($variant:path => $help:literal),+ $(,)? }) => {
        impl ValueEnum for $ty {
            fn value_variants<'a>() -> &'a [Self] {
                &<$ty>::ALL
            }

            fn to_possible_value(&self) -> Option<PossibleValue> {
                let help = match self {
                    $($variant => $help,)+
                };
                Some(PossibleValue::new(self.$name()).help(help))
            }
        }
    };
}

value_enum!(StateKind, name, {
    StateKind::Novel => "The buggy base R: the golden tests fail",
    StateKind::Partial => "R with a proper subset of the golden code hunks (or a weak patch): still buggy",
    StateKind::Resolved => "R with the golden patch: nothing is left to fix",
});

value_enum!(Scenario, name, {
    Scenario::Best => "A git repository whose history ends at the state (leak-gated)",
    Scenario::Worst => "A plain directory without `.git`",
});

value_enum!(Baseline, key, {
    Baseline::Gold => "The golden patch, on Novel: must resolve every instance",
    Baseline::Empty => "No change, on Novel, Partial and Resolved: resolves nothing; abstains everywhere",
    Baseline::Partial => "The Partial state's hunks, on Novel: still buggy, resolves nothing (a Defects4J bug without states: its largest proper hunk subset, unchecked)",
});

value_enum!(ToolAction, name, {
    ToolAction::Compile => "`defects4j compile`",
    ToolAction::Test => "The bug-exposing tests, one `defects4j test -t` each, with full stack traces",
    ToolAction::TestAll => "The whole suite, `defects4j test`, with full stack traces",
});

value_enum!(Profile, name, {
    Profile::Hunk4j => "The authors' method as their released code implements it (default)",
    Profile::Hunk4jPublished => "`hunk4j` plus the released pipeline's defects, to reproduce published numbers",
    Profile::Algorithm1 => "The paper's Algorithm 1 as written",
});

value_enum!(PackageRule, name, {
    PackageRule::Auto => "`directories` for Defects4J bugs (HUNK4J), `modules` for every other source",
    PackageRule::Directories => "HUNK4J's rule: the file's directory segments without the first one",
    PackageRule::Modules => "The module path from the source root: the Java `package` declaration, the Python dotted package (directories with `__init__.py`)",
});

value_enum!(PromptVariant, name, {
    PromptVariant::Issue => "The task text verbatim, nothing else (FixedBench's baseline; the default except for Defects4J bugs)",
    PromptVariant::Edit => "Asks the agent to edit the code so that the issue is addressed",
    PromptVariant::Reproduce => "Asks the agent to reproduce the issue first, then address it",
    PromptVariant::AbstainOrFix => "Asks the agent to reproduce the issue first, then address it or, with nothing to fix, change nothing (a success too)",
    PromptVariant::Plain => "The harness's template: the reported problem, to fix if it still occurs (for a Defects4J bug, the agent study's template: its default)",
    PromptVariant::Files => "`plain` plus the files the golden patch changes",
    PromptVariant::Hunks => "`plain` plus the golden hunks' files and buggy line ranges",
    PromptVariant::Mcp => "`plain` plus the `hunkgen mcp` repository context server (`{mcp_config}`)",
});

value_enum!(ListStyle, name, {
    ListStyle::JsonString => "A JSON-encoded string (`\"[\\\"t1\\\", \\\"t2\\\"]\"`), as the published datasets store them",
    ListStyle::Array => "A plain JSON array",
});

#[cfg(test)]
mod tests {
    use super::*;

    /// clap's names are the library's: what `--state` accepts, `FromStr` accepts.
    #[test]
    fn clap_names_parse_with_from_str() {
        fn check<T: ValueEnum + std::str::FromStr + PartialEq + std::fmt::Debug>() {
            for v in T::value_variants() {
                let pv = v.to_possible_value().expect("not skipped");
                assert!(pv.get_name().parse::<T>().ok().as_ref() == Some(v));
            }
        }
        check::<StateKind>();
        check::<Scenario>();
        check::<Baseline>();
        check::<Profile>();
        check::<PackageRule>();
        check::<PromptVariant>();
        check::<ListStyle>();
        check::<ToolAction>();
    }
}
