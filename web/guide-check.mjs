// Reads the docs site at /guide/ as a person would: loads a page in headless Chromium, records the navigation
// it shows, types a query into the search box and waits for the results, then follows the first result.
// Used by tests/browser/test_guide_site.py; by hand:
//
//   node web/guide-check.mjs --url http://127.0.0.1:5000/guide/ --query custom-token \
//     --screenshot .devstack/screenshots/guide.png [--search-screenshot .devstack/screenshots/guide-search.png]
//
// Prints one JSON report: {status, title, navText, text, results: [{title, href}], resultsText, opened:
// {url, title, text}, notFound (responses of 400 and above), requests, offHost, failed, console, pageErrors,
// cspViolations, screenshot, searchScreenshot}.
// Requests to any host but this machine are recorded in offHost and aborted.
import { check, localOnly, options, recordProblems } from './headless.mjs'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'

const opts = options('guide-check', {
  url: 'string', query: 'string', screenshot: 'path', 'search-screenshot': 'path', 'timeout-ms': 'number',
}, { timeoutMs: 60000, width: 1400, height: 900 })

const shot = async (page, path, fullPage) => {
  mkdirSync(dirname(path), { recursive: true })
  await page.screenshot({ path, fullPage, timeout: opts.timeoutMs })
  return path
}

const report = { url: opts.url, requests: [], offHost: [], failed: [], console: [], pageErrors: [], cspViolations: [] }
await check('guide-check', report, async (launchHere) => {
  const context = await launchHere([], { viewport: { width: opts.width, height: opts.height } })
  await context.route('**/*', (route) => localOnly(route, report))
  const page = context.pages()[0] || await context.newPage()
  page.on('request', (r) => report.requests.push(`${r.method()} ${r.url()}`))
  report.notFound = []
  page.on('response', (r) => { if (r.status() >= 400) report.notFound.push(`${r.status()} ${r.url()}`) })
  await recordProblems(page, report)

  const response = await page.goto(opts.url, { waitUntil: 'load', timeout: opts.timeoutMs })
  report.status = response ? response.status() : null
  await page.waitForLoadState('networkidle', { timeout: opts.timeoutMs }).catch(() => {})
  report.title = await page.title()
  report.navText = await page.locator('nav.md-nav--primary').first().innerText()
  report.text = await page.evaluate(() => document.body.innerText)
  if (opts.screenshot) report.screenshot = await shot(page, opts.screenshot, false)

  if (opts.query) {
    // What a reader does: click the search field in the header (a wide window shows it) and type.
    const input = page.locator('input.md-search__input')
    await input.click({ timeout: opts.timeoutMs })
    await input.pressSequentially(opts.query, { delay: 30 })
    const items = page.locator('.md-search-result__item')
    await items.first().waitFor({ state: 'visible', timeout: opts.timeoutMs })
    // The search worker answers each keystroke, and on a loaded machine the list may still show a shorter query's
    // results when the first item appears: read it once it has stayed the same for a second.
    let shown = null
    for (const start = Date.now(); Date.now() - start < opts.timeoutMs;) {
      const now = await page.$$eval('.md-search-result__item > a', (as) => as.map((a) => a.href).join('\n'))
      if (now === shown) break
      shown = now
      await page.waitForTimeout(1000)
    }
    report.resultsText = await page.locator('.md-search-result').first().innerText()
    report.results = await page.$$eval('.md-search-result__item > a', (as) =>
      as.map((a) => ({ title: (a.querySelector('h1, h2') || a).innerText.trim(), href: a.href })))
    if (opts.searchScreenshot) report.searchScreenshot = await shot(page, opts.searchScreenshot, false)
    await items.first().locator('a').first().click()
    await page.waitForLoadState('load', { timeout: opts.timeoutMs })
    report.opened = { url: page.url(), title: await page.title(), text: await page.evaluate(() => document.body.innerText) }
  }
  report.cspViolations = await page.evaluate(() => window.__csp || [])
})
