// Browser steps of the dashboard's end-to-end test (tests/dashboard.rs runs them against a real
// lattice): Debian's Chromium driven by playwright-core, as an operator would use the page.
//
//   node dashboard/tests/browser.mjs <step> [--key value ...]
//
// Env: DASHBOARD_URL, DASHBOARD_PASSWORD_FILE (operator steps), SCREENSHOTS (folder),
// CHROMIUM (default /usr/bin/chromium). Prints one JSON line with what it saw; exits 1 with the
// reason (and a screenshot "failed-<step>.png") when the page does not show what is expected.

import { chromium } from 'playwright-core';
import { readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

const [step, ...rest] = process.argv.slice(2);
const args = {};
for (let i = 0; i < rest.length; i += 2) args[rest[i].replace(/^--/, '')] = rest[i + 1];
const url = process.env.DASHBOARD_URL || 'http://127.0.0.1:8480/';
const shots = process.env.SCREENSHOTS || '.';
mkdirSync(shots, { recursive: true });
const timeout = Number(args.timeout || 90) * 1000;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  // This machine's network is closed: no background connections, no component updates.
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
const consoleErrors = [];
page.on('pageerror', (e) => consoleErrors.push(String(e)));

async function open(hash) {
  await page.goto(`${url}#${hash}`);
  await page.waitForSelector('#conn.live', { timeout: 15000 });
}
async function login() {
  await open('scale');
  const password = readFileSync(process.env.DASHBOARD_PASSWORD_FILE, 'utf8').trim();
  // A wrong password is refused first: the page must say so.
  await page.fill('#password', 'not-the-password');
  await page.click('#login');
  await page.waitForFunction(() => /wrong password/.test(document.querySelector('#login-error')?.textContent || ''), null, { timeout: 10000 });
  await page.fill('#password', password);
  await page.click('#login');
  await page.waitForSelector('#operator button', { timeout: 10000 });
}
const shot = (name, fullPage = false) => page.screenshot({ path: join(shots, `${name}.png`), fullPage });
// Plans, checks the diff, applies, and waits until wadm reports the new version reconciled.
async function planApplyReconcile(expectInDiff, name) {
  await page.waitForSelector('#plan-diff, #plan-error', { timeout: 20000 });
  const error = await page.$('#plan-error');
  if (error) throw new Error(`change refused: ${await error.textContent()}`);
  const diff = await page.textContent('#plan-diff');
  for (const line of expectInDiff) if (!diff.includes(line)) throw new Error(`diff lacks ${JSON.stringify(line)}:\n${diff}`);
  await shot(`${name}-plan`);
  await page.click('#apply');
  // The state is read in the same turn as it is found settled: the page re-renders on every snapshot.
  const state = await (await page.waitForFunction(() => {
    if (document.querySelector('#plan-error')) return 'refused';
    const s = document.querySelector('#plan-status')?.dataset.state;
    return s === 'reconciled' || s === 'failed' ? s : null;
  }, null, { timeout })).jsonValue();
  if (state !== 'reconciled') throw new Error(`not reconciled: ${await page.textContent('#plan-box, #app-plan')}`);
  await shot(`${name}-reconciled`);
  const version = await page.evaluate(() => document.querySelector('#plan-status').textContent.match(/(\S+) is deployed/)[1]);
  return { version, diff };
}

const steps = {
  // The lattice page lists the hosts and every component (ids given).
  async lattice() {
    await open('lattice');
    const want = (args.components || '').split(',').filter(Boolean);
    await page.waitForFunction((want) => {
      const ids = [...document.querySelectorAll('.component-row')].map((r) => r.dataset.id);
      return document.querySelectorAll('.host').length > 0 && want.every((w) => ids.includes(w));
    }, want, { timeout });
    await shot('lattice');
    return page.evaluate(() => ({
      hosts: document.querySelectorAll('.host').length,
      components: [...document.querySelectorAll('.component-row')].map((r) => [r.dataset.id, Number(r.querySelector('.instances').textContent)]),
      providers: [...document.querySelectorAll('.provider-row')].map((r) => r.dataset.id),
      links: document.querySelectorAll('.link-row').length,
      config: [...document.querySelectorAll('.config-row')].map((r) => r.dataset.name),
      events: document.querySelectorAll('#page-lattice tbody tr').length,
      // Every NATS server: role, answering, its leaf links; the hosts grouped by site.
      servers: [...document.querySelectorAll('.server-row')].map((r) => [r.cells[0].textContent, !r.classList.contains('error'), r.querySelectorAll('.leaf-link').length]),
      sites: [...document.querySelectorAll('.site')].map((s) => [s.dataset.site, s.querySelectorAll('.host').length]),
    }));
  },
  // A host that stopped answering is shown as missing, with what now runs on fewer hosts.
  async 'missing-host'() {
    await open('lattice');
    await page.waitForFunction((name) => [...document.querySelectorAll('.missing-host h2')]
      .some((e) => e.textContent.startsWith(`${name} is missing`)), args.host, { timeout });
    await shot('lattice-missing-host', true);
    return page.evaluate(() => ({
      missing: [...document.querySelectorAll('.missing-host h2')].map((e) => e.textContent.split(' is missing')[0]),
      live: [...document.querySelectorAll('.host h2')].map((e) => e.textContent.split(' ')[0]),
      degraded: [...document.querySelectorAll('.degraded-row')].map((r) => [r.dataset.id, ...[...r.querySelectorAll('.num')].map((n) => Number(n.textContent))]),
    }));
  },
  async application() {
    await open('application');
    await page.waitForSelector('.version-row', { timeout });
    await shot('application');
    return page.evaluate(() => ({
      deployed: document.querySelector('#deployed-version').textContent,
      versions: [...document.querySelectorAll('.version-row')].map((r) => r.dataset.version),
    }));
  },
  // Scale a component (and optionally its input link's concurrency) from the page.
  async scale() {
    await login();
    const row = `.scale-row[data-component="${args.component}"]`;
    await page.waitForSelector(row, { timeout });
    await page.fill(`${row} .instances-input`, String(args.instances));
    if (args.concurrency) await page.fill(`${row} .concurrency-input`, String(args.concurrency));
    await page.click(`${row} .plan-scale`);
    return planApplyReconcile([`+        instances: ${args.instances}`], 'scale');
  },
  // Change one entry of a link's named config.
  async link() {
    await login();
    await page.waitForSelector('#link-select', { timeout });
    const option = await page.evaluate((a) => [...document.querySelectorAll('#link-select option')]
      .find((o) => o.textContent.includes(`(${a.link})`) && o.textContent.includes(`config ${a.config}`))?.value, args);
    if (option === undefined) throw new Error(`no link ${args.link} with config ${args.config}`);
    await page.selectOption('#link-select', option);
    await page.fill('#link-key', args.key);
    await page.fill('#link-value', args.value);
    await page.click('#plan-link');
    return planApplyReconcile([`+              ${args.key}: '${args.value}'`], 'link');
  },
  // Change one entry of a stage's own config; with --refused, expect the change refused and
  // return what the page said.
  async stage_config() {
    await login();
    await page.waitForSelector('#stage-select', { timeout });
    const option = await page.evaluate((a) => [...document.querySelectorAll('#stage-select option')]
      .find((o) => o.textContent === `${a.component} · config ${a.config}`)?.value, args);
    if (option === undefined) throw new Error(`no config ${args.config} of ${args.component}`);
    await page.selectOption('#stage-select', option);
    await page.fill('#stage-key', args.key);
    await page.fill('#stage-value', args.value);
    await page.click('#plan-stage');
    if (!args.refused) return planApplyReconcile([`+          ${args.key}: '${args.value}'`], 'stage-config');
    await page.waitForSelector('#plan-error', { timeout: 20000 });
    await shot('stage-config-refused');
    return { refused: await page.textContent('#plan-error') };
  },
  // Deploy another stored version (the other deployment) from the application page.
  async switch() {
    await login();
    await open('application');
    await page.click(`.version-row[data-version="${args.version}"] .deploy-version`, { timeout });
    return planApplyReconcile([`+++ ${args.version}`], 'switch');
  },
  // Road users move on the map; a warning appears and its DENM is later terminated.
  async intersection() {
    await open('intersection');
    await page.waitForSelector('#map #lanes path', { state: 'attached', timeout: 15000 });
    await page.waitForSelector('.road-user', { state: 'attached', timeout });
    const positions = () => page.evaluate(() => Object.fromEntries([...document.querySelectorAll('.road-user')].map((g) => [g.dataset.key, [g.dataset.x, g.dataset.y, g.dataset.class]])));
    const first = await positions();
    let moved = [];
    for (let i = 0; i < 40 && moved.length === 0; i++) {
      await page.waitForTimeout(250);
      const now = await positions();
      moved = Object.keys(now).filter((k) => first[k] && (first[k][0] !== now[k][0] || first[k][1] !== now[k][1]));
    }
    if (!moved.length) throw new Error('no road user moved in 10 s');
    await page.waitForSelector('.warning-row', { state: 'attached', timeout });
    const action = await page.getAttribute('.warning-row', 'data-action');
    // The predictor has counted turns of the road users that went through.
    await page.waitForSelector('.prior-row', { state: 'attached', timeout });
    await shot('intersection');
    // Its end: the DENM sender terminates the ActionID; the warning leaves the table.
    await page.waitForSelector(`#denm-log li[data-kind="terminated"][data-action="${action}"]`, { state: 'attached', timeout });
    await page.waitForFunction((a) => !document.querySelector(`.warning-row[data-action="${a}"]`), action, { timeout });
    const priors = await page.evaluate(() => document.querySelectorAll('.prior-row').length);
    return { moved: moved.length, classes: [...new Set(Object.values(first).map((v) => v[2]))], warning: action, priors };
  },
  // A dead letter of `stage` is listed and its payload can be inspected.
  async 'dead-letter'() {
    await open('pipeline');
    const row = `.dead-letter-row[data-stage="${args.stage}"]`;
    await page.waitForSelector(row, { timeout });
    // Once more if the first click found no detail: a refresh may move the row under the pointer.
    const detail = () => page.waitForFunction(() => document.querySelector('#dead-letter-detail').textContent.includes('00000000'), null, { timeout: 5000 });
    await page.click(`${row} .inspect`);
    await detail().catch(async () => { await page.click(`${row} .inspect`); await detail(); });
    await page.waitForSelector('.stage-box', { timeout: 10000 });
    // The whole page: what the RSUs send is below the backlog and the dead letters.
    await shot('pipeline', true);
    return page.evaluate((row) => ({
      reason: document.querySelector(`${row} td:nth-child(4)`).textContent,
      detail: document.querySelector('#dead-letter-detail').textContent.split('\n')[0],
      stages: [...document.querySelectorAll('.stage-box')].map((g) => g.dataset.stage),
      chart: !!document.querySelector('#latency-chart canvas'),
      inputs: [...document.querySelectorAll('#inputs tr')].slice(1).map((tr) => [...tr.children].map((td) => td.textContent)),
      rsus: Object.fromEntries([...document.querySelectorAll('.rsu-row')].map((tr) => [tr.dataset.rsu, tr.dataset.frame])),
    }), row);
  },
};

try {
  if (!steps[step]) throw new Error(`unknown step ${step}; steps: ${Object.keys(steps).join(', ')}`);
  const seen = await steps[step]();
  if (consoleErrors.length) throw new Error(`page errors: ${consoleErrors.join('; ')}`);
  console.log(JSON.stringify({ step, ...seen }));
  await browser.close();
} catch (e) {
  await page.screenshot({ path: join(shots, `failed-${step}.png`) }).catch(() => {});
  console.error(`${step}: ${e.message}`);
  await browser.close();
  process.exit(1);
}
