// What the page checkers share: Debian's Chromium, started headless with nothing that reaches past loopback.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { chromium } from 'playwright-core'

export const executablePath = process.env.DEVSTACK_CHROMIUM || '/usr/bin/chromium'

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])

// True for URLs that stay on this machine (or never leave the page).
export const isLocal = (u) => {
  try {
    const url = new URL(u)
    return ['data:', 'blob:', 'about:'].includes(url.protocol) || LOOPBACK.has(url.hostname)
  } catch { return false }
}

// A context's route handler: a request that stays on this machine goes through; any other is recorded in
// report.offHost and refused, so no test ever reaches the network.
export function localOnly (route, report) {
  const request = route.request()
  if (isLocal(request.url())) return route.continue()
  report.offHost.push(`${request.method()} ${request.url()}`)
  return route.abort('blockedbyclient')
}

// Without the background-networking flags Chromium keeps calling Google's hosts, which this network refuses;
// the resolver rule makes any other host fail at once instead of waiting.
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--disable-default-apps', '--disable-extensions', '--no-default-browser-check',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
]

// A persistent context in `profile` (a fresh folder), with extra Chromium flags and context options.
export function launch (profile, extraArgs = [], options = {}) {
  return chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: [...ARGS, ...extraArgs],
    serviceWorkers: 'block',
    ...options,
  })
}

// Record what a person would call broken (failed requests, console errors and warnings, page errors) into
// `report`, and collect CSP violations in window.__csp for the checker to read.
export async function recordProblems (page, report) {
  page.on('requestfailed', (r) => report.failed.push(`${r.method()} ${r.url()}: ${r.failure()?.errorText}`))
  page.on('console', (m) => { if (['error', 'warning'].includes(m.type())) report.console.push(`${m.type()}: ${m.text()}`) })
  page.on('pageerror', (e) => report.pageErrors.push(String(e)))
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      (window.__csp ||= []).push(`${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile || ''}:${e.lineNumber || ''})`)
    })
  })
}

// The command line of a checker, read by node's own parser: `spec` maps each --flag to 'string', 'number',
// 'path' (resolved against the working directory), 'list' (repeatable) or 'flag'; values land in camelCase
// (--timeout-ms -> timeoutMs) over `defaults`. A wrong or unknown argument, or a missing `required` one, is one
// line on stderr and exit 2.
export function options (name, spec, defaults = {}, required = ['url']) {
  const parserOptions = Object.fromEntries(Object.entries(spec).map(([flag, kind]) =>
    [flag, { type: kind === 'flag' ? 'boolean' : 'string', multiple: kind === 'list' }]))
  let values
  try {
    values = parseArgs({ options: parserOptions, strict: true, allowPositionals: false }).values
  } catch (e) {
    console.error(`${name}: ${e.message}`)
    process.exit(2)
  }
  const opts = { ...defaults }
  for (const [flag, value] of Object.entries(values)) {
    const kind = spec[flag]
    opts[flag.replace(/-([a-z])/g, (_, c) => c.toUpperCase())] =
      kind === 'number' ? Number(value) : kind === 'path' ? resolve(value) : value
  }
  for (const flag of required) {
    if (values[flag] === undefined) { console.error(`${name}: --${flag} is required`); process.exit(2) }
  }
  return opts
}

// Run a check in a fresh Chromium profile: `body(launchHere)` opens the browser with launchHere(extraArgs,
// options). Whatever it throws becomes report.error (worded by `describe`); the browser is closed and the
// profile removed in every case, `finish` runs, and the report is printed once flushed (stdout is a pipe, and a
// report is larger than its buffer) before the process exits, 1 on error.
export async function check (name, report, body, { describe = (e) => String(e && e.message ? e.message : e),
  finish = () => {} } = {}) {
  const profile = mkdtempSync(join(tmpdir(), `${name}-chromium-`))
  let context
  try {
    await body(async (extraArgs, contextOptions) => (context = await launch(profile, extraArgs, contextOptions)))
  } catch (e) {
    report.error = describe(e)
  } finally {
    if (context) await context.close().catch(() => {})
    rmSync(profile, { recursive: true, force: true })
    finish()
  }
  await new Promise((done) => process.stdout.write(JSON.stringify(report) + '\n', done))
  process.exit(report.error ? 1 : 0)
}
