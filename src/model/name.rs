//! Names of the contract's small enums (states, scenarios, profiles, …) as written on the
//! command line and in files, parsed with `FromStr` and a typed error that lists them.

/// A name that is none of an enum's, so the message can list the ones that are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid {what} `{given}` (expected one of: {})", valid.join(", "))]
pub struct UnknownName {
    /// What was being named (`state`, `scenario`, `profile`, …).
    pub what: &'static str,
    /// The name given.
    pub given: String,
    /// The valid names, in their declared order.
    pub valid: Vec<&'static str>,
}

/// The one of `all` whose `name` is `given`, else an [`UnknownName`] listing every name;
/// one body for every enum's `FromStr`, so they all accept and refuse alike.
pub fn parse_name<T: Copy>(
    given: &str,
    what: &'static str,
    all: &[T],
    name: fn(T) -> &'static str,
) -> Result<T, UnknownName> {
    all.iter()
        .copied()
        .find(|v| name(*v) == given)
        .ok_or_else(|| UnknownName {
            what,
            given: given.to_string(),
            valid: all.iter().map(|v| name(*v)).collect(),
        })
}

#[cfg(test)]
mod tests {
    use crate::model::{Scenario, StateKind};

    #[test]
    fn names_round_trip_and_unknown_lists_valid() {
        for s in StateKind::ALL {
            assert_eq!(s.name().parse::<StateKind>(), Ok(s));
        }
        assert_eq!("worst".parse::<Scenario>(), Ok(Scenario::Worst));
        let e = "fixed".parse::<StateKind>().expect_err("unknown");
        assert_eq!(
            e.to_string(),
            "invalid state `fixed` (expected one of: novel, partial, resolved)"
        );
    }
}
