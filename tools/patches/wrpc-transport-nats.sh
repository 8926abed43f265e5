#!/usr/bin/env bash
# Builds the copy of wrpc-transport-nats 0.29.0 that Cargo.toml's [patch.crates-io] points at:
# the crates.io release (checksum-verified) with one fix, so a wRPC message is never dropped, and
# two empty messages per call less.
#
# Why: the transport routes every reply through one demultiplexing task that waits on two
# things, "subscribe to this reply subject" commands and incoming messages, with an unbiased
# select. A caller registers the reply subject before it sends the request, but under CPU load
# the task can see both at once and route the reply first: "drop message with no subscriber",
# and the call hangs until the host cancels it at its execution limit (the 2 s stalls of
# `make bench`; each such drop in a host log is followed by "component invocation timed out"
# exactly 2 s later). Upstream fixed it in 0.31.0 (bytecodealliance/wrpc#1272), which needs
# async-nats 0.49; wasmcloud-host 0.27.1 (the newest) requires 0.29. The fix here is the same:
# commands first, biased.
#
# And two messages less per call, of five (invocation, handshake, end of parameters, results, end
# of results). Both ends were empty messages no one reads: values are decoded by length, and each
# side drops its subscription once it has decoded them, yet nats-server routed each and the
# receiver's demultiplexer woke for it.
# - A server's results that carried data end without the empty message; an empty result (nothing
#   to decode, so the caller waits for the end) and nested streams still get theirs.
# - A caller whose invocation carried all its parameters ends them at once instead of awaiting the
#   handshake and then sending the empty message. A task takes the handshake: for nested streams
#   the caller may still index, and when it is refused (no responders) the task ends the caller's
#   results, so such a call still fails at once rather than at its timeout. An invocation without
#   parameters still ends them (the server waits for the end to decode nothing).
#
#   tools/patches/wrpc-transport-nats.sh <destination dir>
set -euo pipefail

VERSION=0.29.0
SHA256=19310c1e0d7f2b8cc25bc700d3c4ab6b58c97cfe70fa490013a6a2d18de8a0a8
dest=$1

source "$(dirname "$0")/crate.sh"
begin_patch wrpc-transport-nats "$VERSION" "$SHA256" "$dest"

python3 - "$work/wrpc-transport-nats-$VERSION/src/lib.rs" <<'PY'
import re, sys
path = sys.argv[1]
src = open(path).read()
# The demultiplexing loop: message branch first, command branch second, unbiased.
pattern = re.compile(
    r"select! \{\n(\s*)(Some\(msg\) = sub\.next\(\) => [^\n]*\n)\s*(Some\(cmd\) = cmd_rx\.recv\(\) => [^\n]*\n)")
found = pattern.findall(src)
if len(found) != 1:
    sys.exit(f"wrpc-transport-nats patch: expected one demultiplexing select, found {len(found)}")
src = pattern.sub(lambda m: "select! {\n" + m.group(1) + "biased;\n" + m.group(1) + m.group(3) + m.group(1) + m.group(2), src)

def once(old, new):
    global src
    if src.count(old) != 1:
        sys.exit(f"wrpc-transport-nats patch: expected one {old!r}, found {src.count(old)}")
    src = src.replace(old, new)

# Results that carried data end without an empty message (see the header of this script).
once("    shutdown: bool,\n    tasks: Arc<JoinSet<()>>,\n}",
     "    shutdown: bool,\n    tasks: Arc<JoinSet<()>>,\n"
     "    // cits patch: a server's root results, which the caller decodes by length.\n"
     "    ends_by_length: bool,\n    wrote: bool,\n}")
if src.count("            shutdown: false,\n") != 2:
    sys.exit("wrpc-transport-nats patch: expected two SubjectWriter constructions")
src = src.replace("            shutdown: false,\n", "            shutdown: false,\n            ends_by_length: false,\n            wrote: false,\n")
once("            Ok(()) => Poll::Ready(Ok(buf.len())),",
     "            Ok(()) => {\n                self.wrote |= !buf.is_empty();\n                Poll::Ready(Ok(buf.len()))\n            }")
once('        trace!("writing stream shutdown message");\n        ready!(self.as_mut().poll_write(cx, &[]))?;',
     '        if self.ends_by_length && self.wrote {\n            self.shutdown = true;\n            return Poll::Ready(Ok(()));\n        }\n'
     '        trace!("writing stream shutdown message");\n        ready!(self.as_mut().poll_write(cx, &[]))?;')
once("        SubjectWriter::new(\n            nats.clone(),\n            Subject::from(result_subject(&tx)),\n            Arc::clone(&tasks),\n        ),",
     "        {\n            let mut results = SubjectWriter::new(\n                nats.clone(),\n                Subject::from(result_subject(&tx)),\n                Arc::clone(&tasks),\n            );\n"
     "            results.ends_by_length = true;\n            results\n        },")

# A caller whose parameters all went out with the invocation does not wait for the server's
# handshake to end them with an empty message (see the header of this script).
def within(start, end, old, new):
    global src
    a = src.find(start)
    b = src.find(end, a)
    if a < 0 or b < 0:
        sys.exit(f"wrpc-transport-nats patch: section {start!r} not found")
    section = src[a:b]
    if section.count(old) != 1:
        sys.exit(f"wrpc-transport-nats patch: expected one {old!r} in {start!r}, found {section.count(old)}")
    src = src[:a] + section.replace(old, new) + src[b:]

once("        buffer: Bytes,\n        tasks: Arc<JoinSet<()>>,\n    },\n    Draining {",
     "        buffer: Bytes,\n        tasks: Arc<JoinSet<()>>,\n"
     "        // cits patch: the caller's result subject, when the invocation carried every parameter.\n"
     "        complete: Option<Subject>,\n    },\n    Draining {")
once("    Active(SubjectWriter),\n}\n\nimpl RootParamWriter {\n    fn new(",
     "    Active(SubjectWriter),\n    // cits patch: ended before the handshake; a task awaits it.\n"
     "    Detached(Arc<std::sync::Mutex<DetachedParams>>),\n}\n\nimpl RootParamWriter {\n    fn new(")
once("            indexed: std::sync::Mutex::default(),\n            buffer,\n            tasks,\n        }\n    }\n}\n",
     "            indexed: std::sync::Mutex::default(),\n            buffer,\n            tasks,\n            complete: None,\n        }\n    }\n"
     """
    // cits patch: the invocation carried every parameter, results come on `result`.
    fn complete(mut self, carried: bool, result: Subject) -> Self {
        if let Self::Handshaking { complete, .. } = &mut self {
            *complete = carried.then_some(result);
        }
        self
    }

    // cits patch: ends the parameters at once when the invocation carried all of them and nothing
    // is queued behind the handshake; a task takes the handshake for any nested stream indexed
    // later, and on a failed one (no responders) ends the caller's results so it fails as fast as
    // before. A server decodes parameters by length and drops its subscription once done, so the
    // empty message that used to end them was routed and dropped. False: the writer goes on as is.
    fn nothing_to_send(&self) -> bool {
        match self {
            Self::Detached(..) => true,
            Self::Handshaking { buffer, indexed, complete: Some(..), .. } => {
                buffer.is_empty() && indexed.lock().map_or(false, |i| i.is_empty())
            }
            _ => false,
        }
    }

    fn detach(&mut self) -> bool {
        match self {
            Self::Detached(..) => return true,
            _ if !self.nothing_to_send() => return false,
            _ => {}
        }
        let Self::Handshaking { nats, mut sub, tasks, complete: Some(result), .. } = mem::take(self) else {
            return false;
        };
        let shared = Arc::new(std::sync::Mutex::new(DetachedParams::default()));
        *self = Self::Detached(Arc::clone(&shared));
        spawn_async(async move {
            let handshake = tokio::time::timeout(std::time::Duration::from_secs(60), sub.next()).await;
            let accepted = match handshake {
                Ok(Some(Message { status, reply: Some(tx), .. })) if status.map_or(true, |c| c.is_success()) => Some(tx),
                _ => None,
            };
            {
                let mut detached = shared.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(tx) = accepted {
                    let mut tx = SubjectWriter::new(nats, Subject::from(param_subject(&tx)), tasks);
                    // Ended already: no empty message when it is dropped.
                    tx.shutdown = true;
                    for (path, tx_tx) in detached.waiting.drain(..) {
                        if let Ok(w) = tx.index(&path) {
                            let _ = tx_tx.send(w);
                        }
                    }
                    detached.tx = Some(tx);
                    return;
                }
                detached.failed = true;
                detached.waiting.clear();
            }
            if let Err(err) = nats.publish(result, Bytes::default()).await {
                warn!(?err, "failed to end the results of a refused invocation");
            }
        });
        true
    }
}

// cits patch: what a detached root parameter writer's task has learnt from the handshake.
#[derive(Default)]
pub struct DetachedParams {
    tx: Option<SubjectWriter>,
    waiting: Vec<(Vec<usize>, oneshot::Sender<SubjectWriter>)>,
    failed: bool,
}
""")
root_active = "impl RootParamWriter {\n    #[instrument(level = \"trace\", skip_all, ret)]\n    fn poll_active("
within(root_active, "impl wrpc_transport::Index<IndexedParamWriter> for RootParamWriter",
       "            Self::Active(..) => Poll::Ready(Ok(())),",
       "            Self::Active(..) => Poll::Ready(Ok(())),\n"
       "            Self::Detached(..) => Poll::Ready(Err(std::io::ErrorKind::BrokenPipe.into())),")
within("impl wrpc_transport::Index<IndexedParamWriter> for RootParamWriter", "impl AsyncWrite for RootParamWriter",
       "            Self::Draining { tx, .. } | Self::Active(tx) => {",
       """            Self::Detached(shared) => {
                let mut detached = shared
                    .lock()
                    .map_err(|err| std::io::Error::other(err.to_string()))?;
                if let Some(tx) = &detached.tx {
                    return tx.index(path).map(IndexedParamWriter::Active);
                }
                if detached.failed {
                    return Err(anyhow!(std::io::Error::from(std::io::ErrorKind::BrokenPipe)));
                }
                let (tx_tx, tx_rx) = oneshot::channel();
                detached.waiting.push((path.to_vec(), tx_tx));
                Ok(IndexedParamWriter::Handshaking {
                    tx_rx,
                    indexed: std::sync::Mutex::default(),
                })
            }
            Self::Draining { tx, .. } | Self::Active(tx) => {""")
root_write = "impl AsyncWrite for RootParamWriter {"
within(root_write, "pub enum IndexedParamWriter",
       "    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {\n",
       "    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {\n"
       "        // cits patch: with nothing buffered there is nothing to flush; no handshake awaited for it.\n"
       "        if self.nothing_to_send() {\n            return Poll::Ready(Ok(()));\n        }\n")
within(root_write, "pub enum IndexedParamWriter",
       "    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {\n",
       "    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {\n"
       "        if self.detach() {\n            return Poll::Ready(Ok(()));\n        }\n")
once("        max_payload = max_payload.saturating_sub(rx.len());\n",
     "        max_payload = max_payload.saturating_sub(rx.len());\n"
     "        // cits patch: whether this invocation carries parameters (then all of them, if none are left).\n"
     "        let carried = !params.is_empty();\n")
once("                params,\n                Arc::clone(&self.tasks),\n            )),\n            Reader {",
     "                params,\n                Arc::clone(&self.tasks),\n            )\n            .complete(carried, result.clone())),\n            Reader {")
open(path, "w").write(src)
PY

install_crate "$work/wrpc-transport-nats-$VERSION" "$dest"
