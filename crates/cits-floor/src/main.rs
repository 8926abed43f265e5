//! `cits-floor FIXTURE [ROUNDS]`: the fused chain over a fixture's messages, ROUNDS times (5);
//! prints one JSON line: the median µs per message and what each pass produced.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: cits-floor FIXTURE [ROUNDS]");
        std::process::exit(2);
    };
    let rounds = args.get(2).map_or(Ok(5), |r| r.parse::<usize>()).unwrap_or_else(|e| {
        eprintln!("ROUNDS: {e}");
        std::process::exit(2)
    });
    let result = std::fs::read(path)
        .map_err(|e| format!("cannot read {path}: {e}"))
        .and_then(|bytes| cits_floor::Fixture::read(&bytes))
        .and_then(|fixture| Ok((fixture.messages.len(), cits_floor::run(&fixture, rounds)?)));
    match result {
        Ok((messages, (median, passes))) => {
            let micros: Vec<String> = passes.iter().map(|p| format!("{:.0}", p.micros)).collect();
            println!(
                r#"{{"target":"{}","messages":{messages},"rounds":{},"median_us_per_message":{median:.1},"pass_us":[{}],"outputs":{},"denms":{},"dead_letters":{}}}"#,
                std::env::consts::ARCH,
                passes.len(),
                micros.join(","),
                passes[0].outputs,
                passes[0].denms,
                passes[0].dead_letters
            );
        }
        Err(e) => {
            eprintln!("cits-floor: {e}");
            std::process::exit(1);
        }
    }
}
