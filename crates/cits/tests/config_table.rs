//! docs/deploying.md's stage-config table is what the stages declare: `cits manifest keys`
//! prints it from the declarations, and a key added, renamed or documented differently in code
//! fails here until the page is regenerated.

const START: &str = "<!-- stage-config: `cits manifest keys` writes this table; tests/config_table.rs checks it -->";
const END: &str = "<!-- end stage-config -->";

#[test]
fn the_documented_stage_config_is_the_declared_one() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/deploying.md");
    let page = std::fs::read_to_string(&path).unwrap();
    let from = page.find(START).expect("the table's start marker") + START.len();
    let to = page[from..].find(END).expect("the table's end marker") + from;
    assert_eq!(
        page[from..to].trim(),
        cits::pipeline::config_table().trim(),
        "docs/deploying.md has drifted from the declared keys: regenerate it with `cits manifest keys`"
    );
}
