// What the page checkers share: Debian's Chromium, started headless with nothing that reaches past loopback.
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
