//! What a cue names that the re-rank stage rewards, as general rules over the cue's text:
//!
//! - **An entity**: the entity ids of the re-ranked candidates that occur in the cue as whole
//!   words (case-sensitive; a word boundary is any character that is not alphanumeric or `_`).
//!   When exactly one does, that entity's memories gain [`ENTITY_BONUS`]; two or more named
//!   say nothing about which one the answer belongs to.
//! - **A time**: English month names (and their usual abbreviations) and four-digit years
//!   1900-2099 in the cue. When any is named, a memory created (UTC) in a named month or the
//!   month after it (an event is often told a few weeks later), in a named year, gains
//!   [`TIME_BONUS`]; months alone match any year, years alone any month.

/// Bonus of the memories of the one entity a cue names.
pub const ENTITY_BONUS: f32 = 0.05;
/// Bonus of the memories created in the months or years a cue names.
pub const TIME_BONUS: f32 = 0.05;

/// Month words (lower case) and their numbers.
const MONTHS: [(&str, u32); 24] = [
    ("january", 1),
    ("jan", 1),
    ("february", 2),
    ("feb", 2),
    ("march", 3),
    ("mar", 3),
    ("april", 4),
    ("apr", 4),
    ("may", 5),
    ("june", 6),
    ("jun", 6),
    ("july", 7),
    ("jul", 7),
    ("august", 8),
    ("aug", 8),
    ("september", 9),
    ("sep", 9),
    ("sept", 9),
    ("october", 10),
    ("oct", 10),
    ("november", 11),
    ("nov", 11),
    ("december", 12),
    ("dec", 12),
];

/// The one entity among `entities` that `cue` names as a whole word, if exactly one is.
pub fn named_entity<'a>(cue: &str, entities: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut named: Vec<&str> = entities
        .into_iter()
        .filter(|entity| !entity.is_empty() && names_word(cue, entity))
        .collect();
    named.sort_unstable();
    named.dedup();
    (named.len() == 1).then(|| named[0])
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `word` occurs in `text` with no word character just before or after it.
fn names_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
    })
}

/// The months and years a cue names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NamedTime {
    months: Vec<u32>,
    years: Vec<i64>,
}

impl NamedTime {
    /// What `cue` names: month words among its ASCII-letter runs (lower-cased), years among
    /// its digit runs of length four starting 19 or 20.
    pub fn parse(cue: &str) -> Self {
        let lower = cue.to_lowercase();
        let mut months = Vec::new();
        for word in lower.split(|c: char| !c.is_ascii_lowercase()) {
            if let Some((_, month)) = MONTHS.iter().find(|(name, _)| *name == word) {
                months.push(*month);
            }
        }
        let mut years = Vec::new();
        for run in cue.split(|c: char| !c.is_alphanumeric()) {
            if run.len() == 4 && (run.starts_with("19") || run.starts_with("20")) {
                if let Ok(year) = run.parse::<i64>() {
                    years.push(year);
                }
            }
        }
        Self { months, years }
    }

    /// Whether the cue names any time at all.
    pub fn is_empty(&self) -> bool {
        self.months.is_empty() && self.years.is_empty()
    }

    /// Whether a memory created at `created_at_us` falls in a named month (or the month after
    /// one) and in a named year.
    pub fn matches(&self, created_at_us: u64) -> bool {
        if self.is_empty() {
            return false;
        }
        let (year, month) = year_month(created_at_us);
        let month_ok = self.months.is_empty()
            || self
                .months
                .iter()
                .any(|named| *named == month || named % 12 + 1 == month);
        let year_ok = self.years.is_empty() || self.years.contains(&year);
        month_ok && year_ok
    }
}

/// The UTC year and month (1-12) of a time in microseconds since the epoch (Howard Hinnant's
/// `civil_from_days`).
fn year_month(us: u64) -> (i64, u32) {
    let days = i64::try_from(us / 86_400_000_000).unwrap_or(i64::MAX / 2);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, u32::try_from(month).expect("1..=12"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY_US: u64 = 86_400_000_000;

    #[test]
    fn year_month_matches_known_dates() {
        assert_eq!(year_month(0), (1970, 1));
        // 2023-05-08 is day 19485 since the epoch; 2024-02-29 is day 19782.
        assert_eq!(year_month(19_485 * DAY_US), (2023, 5));
        assert_eq!(year_month(19_782 * DAY_US + 5), (2024, 2));
        assert_eq!(year_month(19_783 * DAY_US), (2024, 3));
    }

    #[test]
    fn named_time_reads_months_and_years() {
        let time = NamedTime::parse("What did she do in May 2023?");
        assert!(time.matches(19_485 * DAY_US)); // May 2023
        assert!(time.matches((19_485 + 31) * DAY_US)); // June 2023: the month after
        assert!(!time.matches((19_485 + 365) * DAY_US)); // May 2024
        assert!(NamedTime::parse("When did she paint?").is_empty());
        assert!(NamedTime::parse("room 20231").is_empty());
        let december = NamedTime::parse("last dec");
        assert!(december.matches(19_723 * DAY_US)); // 2024-01-01, the month after December
    }

    #[test]
    fn one_named_entity_counts_as_a_whole_word() {
        let entities = ["Caroline", "Mel", "Melanie"];
        assert_eq!(
            named_entity("What did Caroline paint?", entities),
            Some("Caroline")
        );
        assert_eq!(
            named_entity("What did Melanie paint?", entities),
            Some("Melanie")
        );
        assert_eq!(named_entity("Did Caroline meet Melanie?", entities), None);
        assert_eq!(named_entity("Carolines?", entities), None);
    }
}
