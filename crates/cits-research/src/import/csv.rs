//! The datasets' CSV files, read strictly: every error names the file, the row (its line in the
//! file, the header being line 1) and the column.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _};

pub struct Table {
    pub path: PathBuf,
    columns: Vec<String>,
    /// Per row: its line in the file, its fields one after another, where each field ends.
    /// (A levelX track file has a million rows: one allocation per row, not per field.)
    rows: Vec<(usize, String, Vec<u32>)>,
}

/// Splits one line at commas; a field in double quotes may hold commas (`""` is a quote).
fn fields(line: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            ('"', true) => quoted = false,
            ('"', false) if field.trim().is_empty() => {
                field.clear();
                quoted = true;
            }
            (',', false) => out.push(std::mem::take(&mut field)),
            (c, _) => field.push(c),
        }
    }
    if quoted {
        return None;
    }
    out.push(field);
    Some(out.into_iter().map(|f| f.trim().to_string()).collect())
}

impl Table {
    pub fn read(path: &Path) -> anyhow::Result<Table> {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l.trim_end_matches('\r')));
        let Some((_, header)) = lines.next() else { bail!("{}: empty file, no header row", path.display()) };
        let columns = fields(header).with_context(|| format!("{}: row 1: unclosed quote", path.display()))?;
        let mut rows = Vec::new();
        for (line, text) in lines {
            // Blank lines (a trailing newline too many) hold no row.
            if text.trim().is_empty() {
                continue;
            }
            let f = fields(text).with_context(|| format!("{}: row {line}: unclosed quote", path.display()))?;
            if f.len() != columns.len() {
                bail!("{}: row {line}: {} fields, the header has {}", path.display(), f.len(), columns.len());
            }
            let mut joined = String::with_capacity(text.len());
            let mut ends = Vec::with_capacity(f.len());
            for field in f {
                joined.push_str(&field);
                ends.push(u32::try_from(joined.len()).context("a row longer than 4 GB")?);
            }
            rows.push((line, joined, ends));
        }
        Ok(Table { path: path.to_path_buf(), columns, rows })
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn name(&self) -> String {
        self.path.display().to_string()
    }

    /// The index of a column the format requires.
    pub fn column(&self, name: &str) -> anyhow::Result<usize> {
        self.columns.iter().position(|c| c == name).with_context(|| {
            format!("{}: row 1: no column `{name}` (the header has {})", self.name(), self.columns.join(", "))
        })
    }

    /// The file's line of row `row`.
    pub fn line(&self, row: usize) -> usize {
        self.rows[row].0
    }

    pub fn text(&self, row: usize, column: usize) -> &str {
        let (_, joined, ends) = &self.rows[row];
        let start = if column == 0 { 0 } else { ends[column - 1] as usize };
        &joined[start..ends[column] as usize]
    }

    /// A finite number.
    pub fn number(&self, row: usize, column: usize) -> anyhow::Result<f64> {
        let text = self.text(row, column);
        match text.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok(x),
            _ => Err(self.error(row, column, &format!("`{text}` is not a number"))),
        }
    }

    /// An error about one cell.
    pub fn error(&self, row: usize, column: usize, what: &str) -> anyhow::Error {
        anyhow::anyhow!("{}: row {}, column `{}`: {what}", self.name(), self.line(row), self.columns[column])
    }
}

#[cfg(test)]
mod tests {
    use super::fields;

    #[test]
    fn quoted_fields_keep_their_commas() {
        assert_eq!(fields("a, \"b,c\",\"d\"\"\"").unwrap(), ["a", "b,c", "d\""]);
        assert!(fields("\"open").is_none());
    }
}
