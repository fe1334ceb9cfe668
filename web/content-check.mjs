// Opens a public content page (/ct/{contentId}) in headless Chromium (Debian's /usr/bin/chromium driven by
// playwright-core) and reports whether anything on it ran: dialogs (alert/confirm/prompt, recorded and
// dismissed), console messages, page errors, Content-Security-Policy violations and the window markers an
// injected script would set. Prints one JSON report on stdout. Used by tests/browser/test_content_page.py:
//
//   node web/content-check.mjs --url http://127.0.0.1:5000/ct/ID --screenshot .devstack/screenshots/content.png \
//     [--marker __injected]... [--width 390 --height 844] [--accept-language zh-TW] [--click-links] [--timeout-ms 30000]
//
// --click-links clicks every link of the article body and the action button with navigation stopped at the
// request (the route answers 204 No Content, so the page stays), so a javascript: link, had one survived,
// would run here and be reported.
// Report: {url, finalUrl, status, headers, lang, title, text, h1, dialogs, console, pageErrors, failed,
// cspViolations, markers, scripts, handlers, links, images, navAttempts, offHost, requests, pageWidth,
// viewportWidth, screenshot}.
import { check, localOnly, options, recordProblems } from './headless.mjs'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'

const opts = options('content-check', {
  url: 'string', screenshot: 'path', marker: 'list', width: 'number', height: 'number', 'accept-language': 'string',
  'timeout-ms': 'number', 'click-links': 'flag',
}, { marker: [], timeoutMs: 30000, width: 1280, height: 900 })

const report = { url: opts.url, dialogs: [], console: [], pageErrors: [], failed: [], offHost: [], requests: [],
  navAttempts: [] }
await check('content-check', report, async (launchHere) => {
  const context = await launchHere([], {
    viewport: { width: opts.width, height: opts.height },
    ...(opts.acceptLanguage ? { extraHTTPHeaders: { 'Accept-Language': opts.acceptLanguage } } : {}),
  })
  let loaded = false
  await context.route('**/*', (route) => {
    const request = route.request()
    const u = request.url()
    // After the load, a navigation is a clicked link: recorded, never followed (a 204 leaves the page as it is).
    if (loaded && request.isNavigationRequest()) {
      report.navAttempts.push(u)
      return route.fulfill({ status: 204, body: '' })
    }
    return localOnly(route, report)
  })
  const page = context.pages()[0] || await context.newPage()
  page.on('request', (r) => report.requests.push(`${r.method()} ${r.url()}`))
  page.on('dialog', (d) => { report.dialogs.push(`${d.type()}: ${d.message()}`); d.dismiss().catch(() => {}) })
  // Every console message counts here (a page without scripts logs nothing at all), not only errors.
  page.on('console', (m) => report.console.push(`${m.type()}: ${m.text()}`))
  await recordProblems(page, { failed: report.failed, console: [], pageErrors: report.pageErrors })

  const response = await page.goto(opts.url, { waitUntil: 'load', timeout: opts.timeoutMs })
  report.status = response ? response.status() : null
  report.headers = response ? response.headers() : {}
  await page.waitForLoadState('networkidle', { timeout: opts.timeoutMs }).catch(() => {})
  await page.waitForTimeout(300)  // time for a deferred handler (onerror of a broken image) to fire
  loaded = true
  report.finalUrl = page.url()

  const read = () => page.evaluate((markers) => ({
    lang: document.documentElement.lang,
    title: document.title,
    text: document.body ? document.body.innerText : '',
    h1: [...document.querySelectorAll('h1')].map((e) => e.innerText),
    markers: Object.fromEntries(markers.map((m) => [m, window[m] === undefined ? null : String(window[m])])),
    scripts: document.scripts.length,
    handlers: [...document.querySelectorAll('*')].flatMap((e) =>
      [...e.attributes].filter((a) => a.name.toLowerCase().startsWith('on')).map((a) => `${e.localName} ${a.name}`)),
    links: [...document.querySelectorAll('a')].map((a) => ({
      text: a.innerText, href: a.getAttribute('href'), rel: a.getAttribute('rel'), cls: a.className })),
    images: [...document.querySelectorAll('img')].map((i) => ({ src: i.getAttribute('src'), alt: i.alt })),
    pageWidth: document.documentElement.scrollWidth,
    viewportWidth: window.innerWidth,
    cspViolations: window.__csp || [],
  }), opts.marker)
  Object.assign(report, await read())

  if (opts.screenshot) {
    mkdirSync(dirname(opts.screenshot), { recursive: true })
    await page.screenshot({ path: opts.screenshot, fullPage: true, timeout: opts.timeoutMs })
    report.screenshot = opts.screenshot
  }

  if (opts.clickLinks) {
    const links = await page.locator('.body a, a.button').all()
    for (const link of links) {
      await link.click({ timeout: 5000, noWaitAfter: true }).catch((e) => report.pageErrors.push(`click: ${e.message}`))
      await page.waitForTimeout(150)
    }
    const after = await read()
    report.markersAfterClicks = after.markers
    report.cspViolations = after.cspViolations
    // Chromium reports a navigation answered 204 as aborted: the clicks' own, not failures of the page.
    report.failed = report.failed.filter((f) => !report.navAttempts.some((u) => f.startsWith(`GET ${u}: `)))
  }
})
