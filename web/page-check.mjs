// Loads one page in headless Chromium (Debian's /usr/bin/chromium driven by playwright-core; never a
// browser downloaded by playwright), waits until it has rendered, saves a full-page screenshot and
// prints one JSON report on stdout. Used by tests/browser (python) and by hand:
//
//   node web/page-check.mjs --url http://127.0.0.1:5000/docs --screenshot .devstack/screenshots/docs.png \
//     [--top-screenshot .devstack/screenshots/docs-top.png] [--wait-text TEXT]... [--scroll] [--timeout-ms 60000]
//
// "Rendered" means: every --wait-text is in the page's visible text (innerText), the network has been
// quiet for 500 ms and the page's text stopped growing; --scroll then scrolls through the page once
// (lazily rendered parts) and back. The report: {url, finalUrl, status, title, renderMs, scrolledMs,
// text, codeText, requests, offHost, offHostLinks, failed, console, pageErrors, cspViolations,
// screenshot, topScreenshot}.
// Requests to any host but 127.0.0.1/localhost/[::1] are recorded in offHost and aborted, and
// Chromium's own resolver maps every other host to nothing, so nothing leaves the machine either way.
import { check, isLocal, localOnly, options, recordProblems } from './headless.mjs'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'

const opts = options('page-check', {
  url: 'string', screenshot: 'path', 'top-screenshot': 'path', 'wait-text': 'list', 'timeout-ms': 'number',
  scroll: 'flag',
}, { waitText: [], timeoutMs: 60000, width: 1400, height: 900 })

const report = { url: opts.url, requests: [], offHost: [], failed: [], console: [], pageErrors: [], cspViolations: [] }
await check('page-check', report, async (launchHere) => {
  const context = await launchHere([], {
    viewport: { width: opts.width, height: opts.height },
  })
  await context.route('**/*', (route) => localOnly(route, report))
  const page = context.pages()[0] || await context.newPage()
  page.on('request', (r) => report.requests.push(`${r.method()} ${r.url()}`))
  await recordProblems(page, report)

  const started = Date.now()
  const response = await page.goto(opts.url, { waitUntil: 'load', timeout: opts.timeoutMs })
  report.status = response ? response.status() : null
  const deadline = started + opts.timeoutMs
  const missing = async () => {
    const text = await page.evaluate(() => document.body ? document.body.innerText : '')
    return opts.waitText.filter((t) => !text.includes(t))
  }
  let lacking = await missing()
  while (lacking.length && Date.now() < deadline) {
    await page.waitForTimeout(200)
    lacking = await missing()
  }
  await page.waitForLoadState('networkidle', { timeout: Math.max(1000, deadline - Date.now()) }).catch(() => {})
  // Settled: the visible text has not changed for 500 ms.
  let last = -1
  for (;;) {
    const len = await page.evaluate(() => document.body.innerText.length)
    if (len === last || Date.now() > deadline) break
    last = len
    await page.waitForTimeout(500)
  }
  report.renderMs = Date.now() - started
  report.finalUrl = page.url()  // before scrolling, which may set a #fragment
  // Pages that render lazily (Scalar renders an operation when it comes near the viewport) are
  // scrolled through once, so that the text, the code examples and the full-page screenshot hold
  // everything, then back to the top.
  if (opts.scroll) {
    // A window four screens tall brings four screens of operations near the viewport per step: the same
    // rendering, a quarter of the steps (each waits for what it brought into view to render).
    const size = page.viewportSize()
    await page.setViewportSize({ width: size.width, height: size.height * 4 })
    for (let y = 0; Date.now() < deadline;) {
      const { height, view } = await page.evaluate(() => ({ height: document.documentElement.scrollHeight, view: innerHeight }))
      if (y + view >= height) break
      y += view + 600
      await page.evaluate((top) => window.scrollTo(0, top), y)
      await page.waitForTimeout(120)
    }
    await page.setViewportSize(size)
    await page.evaluate(() => window.scrollTo(0, 0))
    await page.waitForLoadState('networkidle', { timeout: Math.max(1000, deadline - Date.now()) }).catch(() => {})
    await page.waitForTimeout(300)
    report.scrolledMs = Date.now() - started
  }
  report.missingText = lacking
  report.title = await page.title()
  report.text = await page.evaluate(() => document.body.innerText)
  report.codeText = await page.evaluate(() =>
    [...document.querySelectorAll('pre, code')].map((e) => e.innerText).filter(Boolean).join('\n----\n'))
  report.cspViolations = await page.evaluate(() => window.__csp || [])
  // Links that would take the reader off this machine (they are not requests until clicked).
  report.offHostLinks = (await page.evaluate(() => [...document.querySelectorAll('a[href]')].map((a) => a.href)))
    .filter((u) => /^https?:/.test(u) && !isLocal(u))
  if (opts.topScreenshot) {  // the first screenful, easy to look at
    mkdirSync(dirname(opts.topScreenshot), { recursive: true })
    await page.screenshot({ path: opts.topScreenshot, timeout: opts.timeoutMs })
    report.topScreenshot = opts.topScreenshot
  }
  if (opts.screenshot) {
    mkdirSync(dirname(opts.screenshot), { recursive: true })
    await page.screenshot({ path: opts.screenshot, fullPage: true, timeout: opts.timeoutMs })
    report.screenshot = opts.screenshot
  }
})
