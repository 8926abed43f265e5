//! The Markdown table of per-recording scores and their totals (`cits evaluate`).

use super::Score;

/// One table of per-recording scores and their totals (Markdown).
pub fn table(rows: &[(String, Score)]) -> String {
    let mut out = String::from(
        "| recording | min | conflicts (PET < 1.5 s) | warned | lead median s | lead min s | informed | information lead median s | warnings | clearly false /10 min | PET ≥ 2 s /10 min | borderline /10 min | precision |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut total = Score::default();
    let line = |name: &str, s: &Score| {
        let (median, min) = s.lead();
        let informed = super::score::median(s.information.lead_times_s.clone()).unwrap_or(f64::NAN);
        format!(
            "| {name} | {:.1} | {} | {} | {median:.2} | {min:.2} | {} | {informed:.2} | {} | {:.1} ({}) | {:.1} ({}) | {:.1} ({}) | {:.0} % |\n",
            s.minutes,
            s.planted,
            s.warned,
            s.information.warned,
            s.warnings,
            s.per_10_min(s.clearly_false),
            s.clearly_false,
            s.per_10_min(s.pet_two_plus),
            s.pet_two_plus,
            s.per_10_min(s.borderline),
            s.borderline,
            100.0 * s.precision()
        )
    };
    for (name, s) in rows {
        out.push_str(&line(name, s));
        total.add(s);
    }
    if rows.len() > 1 {
        out.push_str(&line("**total**", &total));
    }
    out
}
