//! The figures of every send fits (docs/performance.md): calls per compaction and time spent in the
//! library, on a resumed 1 000 000-token agent session (the dev corpus's
//! sessions one after the other, repeated) and on the other scenarios.
//!
//! ```text
//! cargo run --release --example fit_figures -- [histories.jsonl] [--runs N]
//! ```
//! (`scripts/fit-figures` runs it.) The summarizer is simulated: each answer
//! is a summary of `--summary-chars` characters (default 6 000, about 1 500
//! tokens), so the time measured is the library's alone (planning, slimming,
//! building each request, judging each answer), not a model's. Prints
//! `name value` lines, the median over `--runs` runs (default 5); asserts
//! nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built

use std::time::Instant;

use compaction_core::Value;
use compaction_core::summary_request::request_tokens;
use compaction_core::{
    Compactor, CompactorConfig, Content, Next, SendDecision, SummaryAnswer,
    estimate_content_tokens, message_tokens,
};

struct Args {
    histories: String,
    runs: usize,
    summary_chars: usize,
}

fn main() {
    if let Err(e) = run() {
        eprintln!("fit_figures: {e}");
        std::process::exit(1);
    }
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        histories: concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/corpus/histories-dev.jsonl"
        )
        .into(),
        runs: 5,
        summary_chars: 6_000,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut number = |name: &str| -> Result<usize, String> {
            it.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name} needs a whole number"))
        };
        match a.as_str() {
            "--runs" => args.runs = number("--runs")?.max(1),
            "--summary-chars" => args.summary_chars = number("--summary-chars")?.max(1),
            path => args.histories = path.to_string(),
        }
    }
    Ok(args)
}

fn sessions(path: &str) -> Result<Vec<Vec<Content>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    text.lines()
        .map(|line| {
            let row: Value = line.parse::<Value>().map_err(|e| e.to_string())?;
            Content::list_from_value(row["history"].clone(), "history").map_err(|e| e.to_string())
        })
        .collect()
}

fn agent_session(sessions: &[Vec<Content>], tokens: f64) -> Vec<Content> {
    let options = CompactorConfig::new(128_000.0).options.estimate;
    let mut history = Vec::new();
    let mut total = 0.0;
    while total < tokens && !sessions.is_empty() {
        for session in sessions {
            for message in session {
                total += message_tokens(message, &options);
                history.push(message.clone());
            }
            if total >= tokens {
                break;
            }
        }
    }
    history
}

/// What one compaction measured.
struct Figures {
    calls: u32,
    micros: f64,
    max_request_share: f64,
    next_prompt: u64,
    status: u8,
}

fn compact(
    config: &CompactorConfig,
    history: &[Content],
    next: &Content,
    summary_chars: usize,
) -> Figures {
    let words = "- the work goes on; files and decisions are kept\n";
    let text = words.repeat((summary_chars / words.len()).max(1));
    let mut chat = match Compactor::new(config.clone()) {
        Ok(chat) => chat,
        Err(e) => panic!("the config is the example's own: {e}"),
    };
    let options = chat.options().estimate;
    let window = chat.window();
    let mut max_request_share: f64 = 0.0;
    let start = Instant::now();
    let decision = chat.poll_before_send(history, std::slice::from_ref(next));
    let mut elapsed = start.elapsed();
    let outcome = match decision {
        Ok(SendDecision::Summarize {
            mut id,
            mut request,
            ..
        }) => loop {
            max_request_share = max_request_share.max(
                (request_tokens(&request, &options) + request.config.max_output_tokens as f64)
                    / window,
            );
            let answer = SummaryAnswer {
                text: text.clone(),
                finish_reason: Some("STOP".into()),
                usage: None,
            };
            let start = Instant::now();
            let next = chat.handle_answer(id, answer);
            elapsed += start.elapsed();
            match next {
                Ok(Next::Summarize { id: i, request: r }) => (id, request) = (i, r),
                Ok(Next::Done(outcome)) => break outcome,
                Ok(other) => panic!("a step this example does not know: {other:?}"),
                Err(e) => panic!("the ids are the library's own: {e}"),
            }
        },
        Ok(SendDecision::Cleared(outcome)) => outcome,
        Ok(SendDecision::Proceed {
            estimate,
            tier,
            reason,
        }) => chat.noop_outcome(estimate, tier, reason),
        Ok(other) => panic!("the history is given: {other:?}"),
        Err(e) => panic!("the chat is idle: {e}"),
    };
    let next_prompt = match outcome.new_history(history) {
        Some(mut h) => {
            h.push(next.clone());
            estimate_content_tokens(&h, &options)
        }
        None => outcome.estimate(),
    };
    Figures {
        calls: outcome.summary_calls(),
        micros: elapsed.as_secs_f64() * 1e6,
        max_request_share,
        next_prompt,
        status: outcome.status().code(),
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn report(name: &str, config: &CompactorConfig, history: &[Content], next: &Content, args: &Args) {
    let runs: Vec<Figures> = (0..args.runs)
        .map(|_| compact(config, history, next, args.summary_chars))
        .collect();
    let first = &runs[0];
    let history_tokens = estimate_content_tokens(history, &config.options.estimate);
    println!("{name}.history_tokens {history_tokens}");
    println!("{name}.status {}", first.status);
    println!("{name}.summary_calls {}", first.calls);
    println!(
        "{name}.max_request_share_of_window {:.4}",
        first.max_request_share
    );
    println!("{name}.next_prompt_tokens {}", first.next_prompt);
    println!(
        "{name}.library_ms {:.2}",
        median(runs.iter().map(|f| f.micros).collect()) / 1e3
    );
    if first.calls > 0 {
        println!(
            "{name}.library_ms_per_call {:.2}",
            median(
                runs.iter()
                    .map(|f| f.micros / f64::from(f.calls.max(1)))
                    .collect()
            ) / 1e3
        );
    }
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    let sessions = sessions(&args.histories)?;
    let next = Content::text("user", "continue");

    let mut config = CompactorConfig::new(128_000.0);
    config.options.fit.max_output_tokens = Some(16_384);
    let million = agent_session(&sessions, 1_000_000.0);
    report("agent_1m_128k_16k", &config, &million, &next, &args);

    let plain = CompactorConfig::new(128_000.0);
    report("agent_1m_128k", &plain, &million, &next, &args);

    let pasted: String = (0..)
        .map(|i| {
            format!(
                "line {i} of the pasted log: value={} ok\n",
                i * 7919 % 10007
            )
        })
        .take_while({
            let mut n = 0;
            move |l: &String| {
                n += l.len();
                n <= 400_000
            }
        })
        .collect();
    let resumed = vec![
        Content::text("user", "set up the project"),
        Content::text("model", "done"),
        Content::text("user", "what does the log say?"),
        Content::text("model", "paste it"),
        Content::text("user", pasted),
        Content::text("model", "the log shows a timeout"),
    ];
    report("pasted_400k_chars_128k", &plain, &resumed, &next, &args);

    let mut clearing = CompactorConfig::new(128_000.0);
    clearing.options.fit.clear_tool_outputs = true;
    let agent = agent_session(&sessions, 100_000.0);
    report("agent_100k_128k_clear", &clearing, &agent, &next, &args);
    Ok(())
}
