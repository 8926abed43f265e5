// The dashboard page: one live stream of snapshots (server-sent events, see src/hub.rs), five
// views rendered from them. No framework: the DOM is small and rebuilt per update.

const state = { lattice: null, app: null, pipeline: null, intersection: null, map: null, operator: false, plan: null };
const $ = (sel) => document.querySelector(sel);

// h('td', {class: 'num'}, 'text', child...) — text is always set as text, never as HTML.
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}
const svg = (tag, attrs = {}, ...children) => {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) el.setAttribute(k, v);
  for (const c of children.flat()) if (c) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
};
const ms = (v) => (v === null || v === undefined ? '–' : v < 10 ? v.toFixed(2) : v.toFixed(1));
const table = (head, rows, attrs = {}) =>
  h('table', attrs, h('thead', {}, h('tr', {}, head.map((c) => h('th', { class: /^(#|instances|pending|ack|redelivered|p50|p95|bytes|TTC|prob)/.test(c) ? 'num' : null }, c)))), h('tbody', {}, rows));
const badge = (status) => h('span', { class: `badge ${status}` }, status || '?');
const time = (msOrIso) => (msOrIso ? new Date(msOrIso).toLocaleTimeString() : '');

// ---------------------------------------------------------------- navigation

function page() { return (location.hash || '#lattice').slice(1); }
function showPage() {
  for (const s of document.querySelectorAll('.page')) s.classList.toggle('active', s.id === `page-${page()}`);
  for (const a of document.querySelectorAll('nav a')) a.classList.toggle('active', a.dataset.page === page());
  render();
}
window.addEventListener('hashchange', showPage);

// ---------------------------------------------------------------- live stream

let scheduled = false;
function render() {
  if (scheduled) return;
  scheduled = true;
  requestAnimationFrame(() => {
    scheduled = false;
    const p = page();
    try {
      if (p === 'lattice') renderLattice();
      if (p === 'application') renderApplication();
      if (p === 'scale') renderScale();
      if (p === 'pipeline') renderPipeline();
      if (p === 'intersection') renderIntersection();
    } catch (e) { console.error(e); }
  });
}

function connect() {
  const es = new EventSource('/api/stream');
  es.onopen = () => { $('#conn').textContent = 'live'; $('#conn').classList.add('live'); };
  es.onerror = () => { $('#conn').textContent = 'reconnecting…'; $('#conn').classList.remove('live'); };
  for (const topic of ['lattice', 'app', 'pipeline', 'intersection', 'map']) {
    es.addEventListener(topic, (e) => { state[topic] = JSON.parse(e.data); render(); });
  }
}

async function api(path, body) {
  const r = await fetch(path, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await r.json().catch(() => ({ error: `HTTP ${r.status}` }));
  if (!r.ok) throw new Error(json.error || `HTTP ${r.status}`);
  return json;
}

// ---------------------------------------------------------------- operator login

async function refreshSession() {
  state.operator = (await api('/api/session')).operator;
  renderOperator();
  render();
}
function renderOperator() {
  const el = $('#operator');
  el.replaceChildren(state.operator
    ? h('span', {}, 'operator ', h('button', { onclick: async () => { await api('/api/logout', {}); refreshSession(); } }, 'log out'))
    : h('span', { class: 'muted' }, 'read only'));
}
function loginBox() {
  const box = $('#login-box');
  if (state.operator) { box.classList.add('hidden'); return; }
  box.classList.remove('hidden');
  if (box.dataset.drawn) return;
  box.dataset.drawn = '1';
  const input = h('input', { type: 'password', id: 'password', placeholder: 'operator password', autocomplete: 'current-password' });
  const msg = h('span', { class: 'error', id: 'login-error' });
  const go = async () => {
    msg.textContent = '';
    try { await api('/api/login', { password: input.value }); input.value = ''; delete box.dataset.drawn; await refreshSession(); }
    catch (e) { msg.textContent = e.message; }
  };
  input.addEventListener('keydown', (e) => { if (e.key === 'Enter') go(); });
  box.replaceChildren(h('h2', {}, 'Operator login'),
    h('p', { class: 'muted' }, 'Changes go through wadm: a new version of the application is put and deployed. Log in with the operator password (',
      h('code', {}, '.state/auth/dashboard.password'), ').'),
    input, ' ', h('button', { class: 'primary', id: 'login', onclick: go }, 'Log in'), ' ', msg);
}

// ---------------------------------------------------------------- Lattice

function renderLattice() {
  const L = state.lattice;
  const root = $('#page-lattice');
  if (!L) { root.replaceChildren(h('div', { class: 'card muted' }, 'waiting for the lattice…')); return; }
  // Hosts by site: the hub's (site=cits-local) first, then each RSU site's edge hosts.
  const siteOf = (host) => host.labels.site || 'cits-local';
  const sites = [...new Set(L.hosts.map(siteOf))].sort((a, b) => (a === 'cits-local' ? -1 : b === 'cits-local' ? 1 : a.localeCompare(b)));
  const hostCard = (host) => h('div', { class: 'card host', 'data-host': host.id },
    h('h2', {}, host.labels.host || host.name, ' ', h('span', { class: 'muted mono' }, host.id.slice(0, 12) + '…')),
    h('div', {}, 'wasmCloud ', host.version, ' · up ', host.uptime, ' · ', Object.entries(host.labels).map(([k, v]) => h('span', { class: 'chip' }, `${k}=${v}`))),
    h('h3', {}, `Components (${host.components.length})`),
    table(['name', 'id', 'instances', 'image'], host.components.map((c) => h('tr', { class: 'component-row', 'data-id': c.id },
      h('td', {}, c.name), h('td', { class: 'mono' }, c.id), h('td', { class: 'num instances' }, c.instances), h('td', { class: 'mono muted' }, c.image.split('/').pop())))),
    h('h3', {}, `Providers (${host.providers.length})`),
    table(['name', 'id', 'image'], host.providers.map((p) => h('tr', { class: 'provider-row', 'data-id': p.id },
      h('td', {}, p.name), h('td', { class: 'mono' }, p.id), h('td', { class: 'mono muted' }, p.image.split('/').pop())))));
  const hosts = sites.map((site) => h('div', { class: 'site', 'data-site': site },
    h('h2', { class: 'site-title' }, site === 'cits-local' ? 'Hub hosts' : `Site ${site}: edge hosts`),
    h('div', { class: 'hosts' }, L.hosts.filter((host) => siteOf(host) === site).map(hostCard))));
  const servers = (L.servers || []).length === 0 ? '' : h('div', { class: 'card', id: 'lattice-servers' },
    h('h2', {}, 'NATS servers and leaf links'),
    table(['role', 'server', 'monitor', 'up', 'connections', 'routes', 'leaf links', 'memory'], L.servers.map((s) => h('tr', { class: `server-row${s.up ? '' : ' error'}`, 'data-monitor': s.monitor },
      h('td', {}, s.role), h('td', { class: 'mono' }, s.name), h('td', { class: 'mono muted' }, s.monitor),
      h('td', {}, s.up ? s.uptime : h('b', {}, `not answering: ${s.error}`)),
      h('td', { class: 'num' }, s.up ? s.connections : ''), h('td', { class: 'num' }, s.up ? s.routes : ''),
      h('td', {}, s.leafs.map((l) => h('div', { class: 'mono leaf-link' }, `${l.peer} (${l.address}, rtt ${l.rtt})`))),
      h('td', { class: 'num' }, s.up ? `${s.mem_mib.toFixed(0)} MiB` : '')))));
  const missing = (L.missing_hosts || []).map((m) => h('div', { class: 'card error missing-host', 'data-host': m.id },
    h('h2', {}, `${m.labels.host || m.name} is missing`, ' ', h('span', { class: 'mono' }, m.id.slice(0, 12) + '…')),
    h('div', {}, `Last answered ${time(m.last_seen_ms)}; it did not say it stopped (killed, or its machine lost). It ran `,
      `${m.components.length} component(s) and ${m.providers.length} provider(s). `,
      Object.entries(m.labels).map(([k, v]) => h('span', { class: 'chip' }, `${k}=${v}`)))));
  const degraded = (L.degraded || []).length === 0 ? '' : h('div', { class: 'card error', id: 'lattice-degraded' },
    h('h2', {}, 'Running on fewer hosts than before'),
    table(['kind', 'id', 'hosts now', 'hosts before'], L.degraded.map((d) => h('tr', { class: 'degraded-row', 'data-id': d.id },
      h('td', {}, d.kind), h('td', { class: 'mono' }, d.id), h('td', { class: 'num' }, d.hosts_now), h('td', { class: 'num' }, d.hosts_before)))));
  const links = table(['source', 'name', 'target', 'interface', 'source config', 'target config'], L.links.map((l) => h('tr', { class: 'link-row' },
    h('td', { class: 'mono' }, l.source), h('td', {}, l.name), h('td', { class: 'mono' }, l.target), h('td', { class: 'mono' }, l.interface),
    h('td', {}, l.source_config.map((c) => h('span', { class: 'chip' }, c))), h('td', {}, l.target_config.map((c) => h('span', { class: 'chip' }, c))))));
  const config = table(['name', 'entries'], Object.entries(L.config).map(([name, entries]) => h('tr', { class: 'config-row', 'data-name': name },
    h('td', { class: 'mono' }, name),
    h('td', { class: 'mono' }, Object.entries(entries).map(([k, v]) => h('div', {}, `${k} = ${/password|secret|token/i.test(k) ? '••••' : v.replace(/(redis:\/\/[^:]*:)[^@]*@/, '$1••••@')}`))))));
  const events = table(['time', 'event', 'detail'], L.events.slice(0, 60).map((e) => h('tr', {}, h('td', {}, time(e.time)), h('td', {}, e.kind), h('td', { class: 'mono' }, e.summary))));
  root.replaceChildren(
    L.error ? h('div', { class: 'card error' }, L.error) : '',
    h('div', { class: 'card' }, h('h2', {}, `Lattice ${L.lattice}`, ' ', h('span', { class: 'muted' }, `${L.hosts.length} host(s)${(L.missing_hosts || []).length ? `, ${L.missing_hosts.length} missing` : ''}, ${L.links.length} links — refreshed ${time(L.refreshed_at_ms)}`))),
    ...missing, degraded, servers,
    h('div', { id: 'lattice-hosts' }, hosts),
    h('div', { class: 'card' }, h('h2', {}, 'Links'), links),
    h('div', { class: 'grid2' }, h('div', { class: 'card' }, h('h2', {}, 'Named config'), config), h('div', { class: 'card' }, h('h2', {}, 'Lattice events'), events)));
}

// ---------------------------------------------------------------- Application

function renderApplication() {
  const A = state.app;
  const root = $('#page-application');
  if (!A) { root.replaceChildren(h('div', { class: 'card muted' }, 'waiting for wadm…')); return; }
  const versions = table(['version', 'deployed', 'what', ''], [...A.versions].reverse().map((v) => h('tr', { class: 'version-row', 'data-version': v.version },
    h('td', { class: 'mono' }, v.version), h('td', {}, v.deployed ? badge('deployed') : ''),
    h('td', {}, v.change || v.description),
    h('td', {}, !v.deployed && state.operator ? h('button', { class: 'deploy-version', onclick: () => planDeploy(v.version) }, 'deploy this version') : ''))));
  const scalers = table(['scaler', 'kind', 'status', 'message'], A.scalers.map((s) => h('tr', { class: 'scaler-row' },
    h('td', { class: 'mono' }, s.name), h('td', {}, s.kind), h('td', {}, badge(s.status)), h('td', {}, s.message))));
  root.replaceChildren(
    A.error ? h('div', { class: 'card error' }, A.error) : '',
    h('div', { class: 'card' }, h('h2', {}, `Application ${A.name} `, h('span', { id: 'app-status' }, badge(A.status))),
      h('div', {}, 'deployed ', h('code', { id: 'deployed-version' }, A.deployed_version || '–'), ' · latest ', h('code', {}, A.latest_version || '–'), A.message ? ` · ${A.message}` : ''),
      state.operator ? '' : h('p', { class: 'muted' }, 'Log in on "Scale and link" to switch versions (e.g. the seven-actor and the fused deployment).')),
    h('div', { class: 'card' }, h('h2', {}, 'Versions'), versions),
    h('div', { class: 'card' }, h('h2', {}, 'Scalers'), scalers),
    planCard('app-plan'));
}

async function planDeploy(version) {
  try { showPlan(await api('/api/plan/deploy', { version })); }
  catch (e) { showPlan({ error: e.message }); }
}

// ---------------------------------------------------------------- Scale and link

function renderScale() {
  loginBox();
  const A = state.app;
  const forms = $('#scale-forms');
  if (!A || !state.operator) { forms.replaceChildren(); $('#plan-box').classList.add('hidden'); return; }
  // Rebuilding the forms while the operator types would lose the input: only when the model changed.
  const key = `${A.deployed_version}`;
  if (forms.dataset.version !== key) {
    forms.dataset.version = key;
    forms.replaceChildren(scaleCard(A), linkCard(A), stageConfigCard(A));
  }
  drawPlan($('#plan-box'));
}

// The handler link that feeds a component (its input subscription), as [source component, link].
function inputLink(A, component) {
  for (const c of A.components) for (const l of c.links) if (l.target === component && /handler/.test(l.interface)) return [c, l];
  return null;
}

function scaleCard(A) {
  const rows = A.components.filter((c) => c.instances !== null && c.instances !== undefined).map((c) => {
    const instances = h('input', { type: 'number', min: 1, class: 'small instances-input', value: c.instances });
    const input = inputLink(A, c.name);
    const conc = input && input[1].source_config[0] && input[1].source_config[0].properties.concurrency;
    const concurrency = conc != null ? h('input', { type: 'number', min: 1, class: 'small concurrency-input', value: conc }) : null;
    const go = () => {
      const edits = [];
      if (Number(instances.value) !== c.instances) edits.push({ kind: 'scale', component: c.name, instances: Number(instances.value) });
      if (concurrency && concurrency.value !== String(conc)) {
        edits.push({ kind: 'link_config', source: input[0].name, link: input[1].index, side: 'source', config: input[1].source_config[0].name, key: 'concurrency', value: concurrency.value });
      }
      planChange(edits);
    };
    return h('tr', { class: 'scale-row', 'data-component': c.name }, h('td', {}, c.name), h('td', {}, c.kind), h('td', {}, c.scaler),
      h('td', { class: 'num' }, instances), h('td', { class: 'num' }, concurrency || '–'), h('td', {}, h('button', { class: 'plan-scale', onclick: go }, 'plan change')));
  });
  return h('div', { class: 'card' }, h('h2', {}, 'Scale ', h('span', { class: 'muted' }, `(on ${A.deployed_version}: instances per host; concurrency = invocations one provider copy starts at once)`)),
    table(['component', 'type', 'scaler', 'instances', 'input concurrency', ''], rows));
}

// One entry of a named config chosen among `targets` ({ label, cfg }), planned as `edit(x, key, value)`
// (value null: remove the entry). Element ids start with `prefix`.
function configCard(title, prefix, targets, edit) {
  const select = h('select', { id: `${prefix}-select` }, targets.map((x, i) => h('option', { value: i }, x.label)));
  const key = h('input', { id: `${prefix}-key`, placeholder: 'key' });
  const value = h('input', { id: `${prefix}-value`, placeholder: 'value (empty: remove)' });
  const entries = h('div', { class: 'mono', id: `${prefix}-entries` });
  const show = () => {
    const x = targets[Number(select.value)];
    entries.replaceChildren(...Object.entries(x ? x.cfg.properties : {}).map(([k, v]) => h('div', {}, h('a', { href: '#scale', onclick: (e) => { e.preventDefault(); key.value = k; value.value = /redis:\/\//.test(v) ? '' : v; } }, k), ` = ${v.replace(/(redis:\/\/[^:]*:)[^@]*@/, '$1••••@')}`)));
  };
  select.addEventListener('change', show);
  show();
  const go = () => planChange([edit(targets[Number(select.value)], key.value, value.value === '' ? null : value.value)]);
  return h('div', { class: 'card' }, h('h2', {}, title), select, entries, h('div', {}, key, ' = ', value, ' ', h('button', { id: `plan-${prefix}`, onclick: go }, 'plan change')));
}

function linkCard(A) {
  const links = [];
  for (const c of A.components) for (const l of c.links) for (const side of ['source', 'target']) for (const cfg of l[`${side}_config`]) {
    links.push({ c, l, side, cfg, label: `${c.name} → ${l.target} (${l.name}) · ${side} config ${cfg.name}` });
  }
  return configCard('Link config', 'link', links,
    (x, key, value) => ({ kind: 'link_config', source: x.c.name, link: x.l.index, side: x.side, config: x.cfg.name, key, value }));
}

// A stage's own settings; a key the stage does not declare comes back refused, naming the nearest one.
function stageConfigCard(A) {
  const configs = [];
  for (const c of A.components.filter((c) => c.kind === 'component')) for (const cfg of c.config) configs.push({ c, cfg, label: `${c.name} · config ${cfg.name}` });
  return configCard('Stage config', 'stage', configs,
    (x, key, value) => ({ kind: 'component_config', component: x.c.name, config: x.cfg.name, key, value }));
}

// wadm's first pass over a deployed version takes milliseconds; its status publish, if any, is long
// in by then.
const SETTLE_MS = 5000;

// The status's component and provider scalers are exactly the deployed model's components.
function scalersOfModel(A) {
  const scaled = new Set(A.scalers.filter((s) => /^(Daemon|Spread)Scaler$/.test(s.kind)).map((s) => s.name));
  const ids = new Set(A.components.map((c) => c.id));
  return scaled.size === ids.size && [...ids].every((id) => scaled.has(id));
}

async function planChange(edits) {
  try { showPlan(await api('/api/plan', { base_version: state.app.deployed_version, edits })); }
  catch (e) { showPlan({ error: e.message }); }
}

function showPlan(plan) { state.plan = { ...plan, applied: null }; render(); }

function planCard(id) { const el = h('div', { class: 'card hidden', id }); drawPlan(el); return el; }

// The diff of the planned version, the apply button, then wadm's status until reconciled.
function drawPlan(box) {
  const P = state.plan;
  if (!P) { box.classList.add('hidden'); return; }
  box.classList.remove('hidden');
  if (P.error) { box.replaceChildren(h('h2', {}, 'Change refused'), h('div', { class: 'error', id: 'plan-error' }, P.error)); return; }
  const diff = h('pre', { class: 'diff', id: 'plan-diff' }, P.diff.split('\n').map((line) =>
    h('span', { class: line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : null }, line + '\n')));
  let status = '';
  if (P.applied) {
    const A = state.app;
    // Right after a deploy wadm's status is still the previous version's (a scale change keeps the
    // same scalers). wadm publishes a status after its first pass over the new version, but only
    // when it differs from the last one: a change that never moves the status off "deployed" is
    // taken as reconciled once the status stayed unchanged for SETTLE_MS (server clock) after it.
    const published = A && A.status_at_ms > P.applied_at;
    const settled = A && A.refreshed_at_ms - P.applied_at >= SETTLE_MS && scalersOfModel(A);
    const current = A && A.deployed_version === P.applied && (published || settled);
    const reconciled = current && A.status === 'deployed';
    const failed = current && A.status === 'failed';
    status = h('div', { id: 'plan-status', 'data-state': reconciled ? 'reconciled' : failed ? 'failed' : 'reconciling' },
      'wadm: ', badge(A ? A.status : '?'), ' ', reconciled ? `${P.applied} is deployed and reconciled.` : failed ? A.message : `reconciling ${P.applied}…`,
      A ? h('ul', {}, A.scalers.filter((s) => s.status !== 'deployed').map((s) => h('li', {}, `${s.name}: ${s.status} ${s.message}`))) : '');
  }
  const apply = async (ev) => {
    ev.target.disabled = true;
    try { const r = await api('/api/apply', { plan_id: P.plan_id }); state.plan.applied_at = r.applied_at_ms; state.plan.applied = r.version; }
    catch (e) { state.plan.error = e.message; }
    render();
  };
  box.replaceChildren(h('h2', {}, `${P.summary}`), h('div', { class: 'muted' }, `${P.base_version} → ${P.version}`), diff,
    P.applied ? '' : h('button', { class: 'primary', id: 'apply', onclick: apply }, `put and deploy ${P.version}`), ' ',
    P.applied ? '' : h('button', { onclick: () => { state.plan = null; render(); } }, 'discard'), status);
}

// ---------------------------------------------------------------- Pipeline

let chart = null;
function renderPipeline() {
  const P = state.pipeline;
  if (!P) return;
  $('#pipeline-summary').textContent = `${P.frames_total} frames seen · end to end p50 ${ms(P.end_to_end.p50_ms)} ms, p95 ${ms(P.end_to_end.p95_ms)} ms over 10 s · ${P.dead_letters_total} dead letters${P.error ? ' · ' + P.error : ''}`;
  drawGraph(P);
  drawChart(P);
  const rows = [];
  for (const s of P.stages) for (const p of s.backlog.partitions) rows.push(h('tr', { class: p.pending + p.ack_pending > 0 ? 'busy' : null },
    h('td', {}, s.name), h('td', { class: 'mono' }, p.consumer), h('td', { class: 'mono' }, p.filter), h('td', { class: 'num' }, p.pending), h('td', { class: 'num' }, p.ack_pending), h('td', { class: 'num' }, p.redelivered)));
  $('#backlog').replaceChildren(table(['stage', 'consumer', 'partition', 'pending', 'ack pending', 'redelivered'], rows));
  $('#rsus').replaceChildren(P.rsus.length
    ? table(['RSU', 'stations', 'object frame', 'objects are'], P.rsus.map((r) => h('tr', { class: 'rsu-row', 'data-rsu': r.rsu, 'data-frame': r.object_frame },
      h('td', {}, r.rsu), h('td', { class: 'mono' }, r.stations), h('td', { class: 'mono' }, r.object_frame), h('td', {}, r.object_frame_means))))
    : h('p', { class: 'muted' }, 'no RSU registered'));
  $('#inputs').replaceChildren(P.inputs.length
    ? table(['RSU', 'format', 'messages'], P.inputs.map((c) => h('tr', { class: c.format === 'unknown format' ? 'busy' : null },
      h('td', {}, c.rsu), h('td', {}, c.format), h('td', { class: 'num' }, c.messages))))
    : h('p', { class: 'muted' }, 'nothing received yet'));
  // Rebuilt only when the list changed: rebuilt on every refresh, it could take the button away
  // under an operator's click.
  const shown = P.dead_letters.slice(0, 50);
  const key = shown.map((d) => d.seq).join(',');
  if (key !== deadLettersShown || !$('#dead-letters').firstChild) {
    deadLettersShown = key;
    $('#dead-letters').replaceChildren(table(['#', 'time', 'stage', 'reason', 'from', 'bytes', ''], shown.map((d) => h('tr', { class: 'dead-letter-row', 'data-stage': d.stage },
      h('td', { class: 'num' }, d.seq), h('td', {}, time(d.failed_at_ms)), h('td', {}, d.stage), h('td', {}, d.reason), h('td', { class: 'mono' }, d.source_subject), h('td', { class: 'num' }, d.payload_bytes),
      h('td', {}, h('button', { class: 'inspect', onclick: () => inspect(d.seq) }, 'inspect'))))));
  }
}
let deadLettersShown = '';

async function inspect(seq) {
  const pre = $('#dead-letter-detail');
  pre.classList.remove('hidden');
  try {
    const d = await api(`/api/dead-letters/${seq}`);
    pre.textContent = `#${d.seq} ${d.stage} · ${d.reason}\nfrom ${d.source_subject} at ${new Date(d.failed_at_ms).toISOString()}\n\n${d.decoded}\n\n${d.payload_hex}`;
  } catch (e) { pre.textContent = e.message; }
}

// Stages left to right, each coloured by its p95 in stage and its backlog (green → red).
function drawGraph(P) {
  const n = P.stages.length, w = 150, gap = 50, hgt = 118, width = n * w + (n - 1) * gap + 20;
  const root = svg('svg', { viewBox: `0 0 ${width} ${hgt + 40}`, class: 'graph' });
  P.stages.forEach((s, i) => {
    const x = 10 + i * (w + gap), y = 20;
    const load = Math.min(1, Math.max((s.latency.p95_ms || 0) / 50, (s.backlog.pending + s.backlog.ack_pending) / 50));
    const fill = `hsl(${Math.round(130 - 130 * load)}, 60%, ${s.latency.frames ? 88 : 95}%)`;
    const reasons = Object.entries(s.reasons).map(([k, v]) => `${k} ${v}`).join(', ');
    root.append(svg('g', { class: 'stage-box', 'data-stage': s.name },
      svg('rect', { x, y, width: w, height: hgt, fill }),
      svg('text', { x: x + 8, y: y + 18, class: 'title' }, s.name),
      svg('text', { x: x + 8, y: y + 36 }, `${s.latency.per_s.toFixed(1)} frames/s`),
      svg('text', { x: x + 8, y: y + 52 }, `p50 ${ms(s.latency.p50_ms)} · p95 ${ms(s.latency.p95_ms)} ms`),
      svg('text', { x: x + 8, y: y + 68 }, `backlog ${s.backlog.pending} · in flight ${s.backlog.ack_pending}`),
      svg('text', { x: x + 8, y: y + 84 }, `redelivered ${s.backlog.redelivered}`),
      svg('text', { x: x + 8, y: y + 100, fill: s.dead_letters ? '#cf222e' : null }, `dead letters ${s.dead_letters}`),
      svg('title', {}, reasons || 'no dead letters among the newest')));
    if (i > 0) {
      const ax = x - gap, my = y + hgt / 2;
      root.append(svg('g', { class: 'hop' },
        svg('line', { x1: ax + 2, y1: my, x2: x - 4, y2: my, stroke: '#8c99a6', 'marker-end': 'url(#arrow)' }),
        svg('text', { x: ax + gap / 2, y: my - 18, 'text-anchor': 'middle' }, 'hop'),
        svg('text', { x: ax + gap / 2, y: my - 5, 'text-anchor': 'middle' }, ms(s.latency.hop_p50_ms)),
        svg('text', { x: ax + gap / 2, y: my + 14, 'text-anchor': 'middle' }, ms(s.latency.hop_p95_ms)),
        svg('title', {}, `hop into ${s.name}: p50 ${ms(s.latency.hop_p50_ms)} ms (above the arrow), p95 ${ms(s.latency.hop_p95_ms)} ms (below)`)));
    }
  });
  root.prepend(svg('defs', {}, svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto' }, svg('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#8c99a6' }))));
  $('#pipeline-graph').replaceChildren(root);
}

function drawChart(P) {
  // One point per second; seconds without frames are gaps, not lines across them.
  const xs = [], p50 = [], p95 = [], n = [];
  const by = new Map(P.series.map((p) => [p.t_s, p]));
  const first = P.series.length ? P.series[0].t_s : 0, last = P.series.length ? P.series[P.series.length - 1].t_s : -1;
  for (let t = first; t <= last; t++) {
    const p = by.get(t);
    xs.push(t); p50.push(p ? p.p50_ms : null); p95.push(p ? p.p95_ms : null); n.push(p ? p.frames : 0);
  }
  const data = [xs, p50, p95, n];
  const el = $('#latency-chart');
  const width = Math.max(400, el.clientWidth - 10);
  if (!chart || chart.width !== width) {
    if (chart) chart.destroy();
    chart = new uPlot({
      width, height: 220,
      series: [{}, { label: 'p50 ms', stroke: '#1f6feb', width: 2 }, { label: 'p95 ms', stroke: '#cf222e', width: 2 }, { label: 'frames/s', stroke: '#8c99a6', scale: 'n' }],
      axes: [{}, { label: 'ms' }, { side: 1, scale: 'n', label: 'frames/s', grid: { show: false } }],
      scales: { x: { time: true } },
    }, data, el);
  } else chart.setData(data);
}

// ---------------------------------------------------------------- Intersection

const colour = { car: 'var(--car)', truck: 'var(--car)', bus: 'var(--car)', motorcycle: 'var(--car)', bicycle: 'var(--bicycle)', pedestrian: 'var(--pedestrian)' };
let mapDrawn = null;
function renderIntersection() {
  const M = state.map, I = state.intersection;
  if (!M) return;
  const map = $('#map');
  const [x0, y0, x1, y1] = M.bounds;
  // North up: y is flipped (SVG y grows downwards).
  const pad = 5;
  if (mapDrawn !== M) {
    mapDrawn = M;
    $('#map-name').textContent = M.name;
    map.setAttribute('viewBox', `${x0 - pad} ${-y1 - pad} ${x1 - x0 + 2 * pad} ${y1 - y0 + 2 * pad}`);
    const lanes = svg('g', { id: 'lanes' });
    for (const l of M.lanelets) {
      const d = l.points.map((p, i) => `${i ? 'L' : 'M'}${p[0]},${-p[1]}`).join(' ');
      const style = l.mode === 'pedestrian'
        ? { stroke: l.role === 'crosswalk' ? '#ffffff' : '#ced4da', 'stroke-width': l.role === 'crosswalk' ? 2.5 : 1.5, 'stroke-dasharray': l.role === 'crosswalk' ? '0.6 0.5' : null }
        : l.mode === 'bicycle' ? { stroke: '#b2f2bb', 'stroke-width': 1.4 } : { stroke: '#adb5bd', 'stroke-width': 3 };
      lanes.append(svg('path', { d, fill: 'none', 'stroke-linecap': 'round', ...style }, svg('title', {}, `lanelet ${l.id} ${l.mode} ${l.role} ${l.turn}`)));
    }
    map.replaceChildren(lanes, svg('g', { id: 'live' }));
  }
  if (!I) return;
  const select = $('#rsu-select');
  const names = I.rsus.map((r) => r.rsu);
  if (select.dataset.names !== names.join(',')) {
    const current = select.value;
    select.dataset.names = names.join(',');
    select.replaceChildren(h('option', { value: '' }, 'all'), ...names.map((n) => h('option', { value: n }, n)));
    select.value = names.includes(current) ? current : '';
  }
  const rsus = I.rsus.filter((r) => !select.value || r.rsu === select.value);
  const live = svg('g', { id: 'live' });
  for (const r of rsus) {
    for (const o of r.objects) {
      const c = colour[o.class] || '#495057';
      for (const p of o.paths) live.append(svg('path', { d: p.points.map((q, i) => `${i ? 'L' : 'M'}${q[0]},${-q[1]}`).join(' '), fill: 'none', stroke: c, 'stroke-width': 0.35, 'stroke-dasharray': '0.8 0.5', 'stroke-opacity': Math.max(0.25, p.probability) }));
      if (o.trail.length > 1) live.append(svg('path', { d: o.trail.map((q, i) => `${i ? 'L' : 'M'}${q[0]},${-q[1]}`).join(' '), fill: 'none', stroke: c, 'stroke-width': 0.5, 'stroke-opacity': 0.5 }));
      live.append(svg('g', { class: 'road-user', 'data-key': `${r.rsu}/${o.key}`, 'data-class': o.class, 'data-x': o.position[0], 'data-y': o.position[1] },
        svg('circle', { cx: o.position[0], cy: -o.position[1], r: o.class === 'pedestrian' ? 0.7 : o.class === 'bicycle' ? 0.9 : 1.6, fill: c, stroke: '#fff', 'stroke-width': 0.25 }),
        svg('text', { x: o.position[0] + 1.8, y: -o.position[1] - 1, 'font-size': 2.2, fill: '#343a40' }, `${o.object_id}`),
        svg('title', {}, `${o.class} ${o.key} · ${o.speed_mps ? o.speed_mps.toFixed(1) + ' m/s' : ''} · ${o.paths.length} predicted path(s)`)));
    }
    for (const w of r.warnings) {
      live.append(svg('g', { class: 'warning-mark', 'data-action': w.action_id },
        svg('circle', { class: 'warn-ring', cx: w.place[0], cy: -w.place[1], r: 3 }),
        svg('text', { x: w.place[0] + 3.5, y: -w.place[1] + 1, 'font-size': 2.4, fill: '#cf222e', 'font-weight': 600 }, `${w.action_id} TTC ${w.ttc_s.toFixed(1)} s`)));
    }
  }
  map.replaceChild(live, map.querySelector('#live'));
  const warnings = rsus.flatMap((r) => r.warnings.map((w) => ({ ...w, rsu: r.rsu })));
  $('#warnings').replaceChildren(warnings.length ? table(['ActionID', 'RSU', 'pair', 'TTC s', 'prob', 'place (m E, N)'], warnings.map((w) => h('tr', { class: 'warning-row', 'data-action': w.action_id },
    h('td', { class: 'mono' }, w.action_id), h('td', {}, w.rsu), h('td', {}, w.pair), h('td', { class: 'num' }, w.ttc_s.toFixed(2)), h('td', { class: 'num' }, w.probability.toFixed(2)),
    h('td', { class: 'mono' }, `${w.place[0].toFixed(1)}, ${w.place[1].toFixed(1)}`)))) : h('div', { class: 'muted' }, 'none'));
  $('#denm-log').replaceChildren(...I.denms.filter((d) => !select.value || d.rsu === select.value).slice(0, 40).map((d) =>
    h('li', { class: d.kind, 'data-action': d.action_id, 'data-kind': d.kind }, `${time(d.at_ms)} ${d.rsu} ${d.action_id} ${d.kind}`)));
  if (I.error) $('#warnings').prepend(h('div', { class: 'error' }, I.error));
  // What the predictor learned: how road users on each approach went on (decayed counts).
  const priors = rsus.flatMap((r) => r.priors.map((p) => ({ ...p, rsu: r.rsu })));
  const pct = (x) => `${Math.round(100 * x)}%`;
  $('#priors').replaceChildren(priors.length ? table(['RSU', 'approach', 'mode', 'tracks', '← left', '↑', 'right →'], priors.map((p) => h('tr', { class: 'prior-row', 'data-approach': p.approach, 'data-mode': p.mode },
    h('td', {}, p.rsu), h('td', { class: 'mono' }, `${p.approach}`), h('td', {}, p.mode), h('td', { class: 'num' }, p.tracks.toFixed(1)),
    ...p.shares.map((x) => h('td', { class: 'num' }, pct(x)))))) : h('div', { class: 'muted' }, 'none yet: every turn weighs alike'));
}

// ---------------------------------------------------------------- start

connect();
refreshSession();
showPage();
