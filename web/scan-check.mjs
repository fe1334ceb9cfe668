// Runs the hosted Vital Scan page in headless Chromium (Debian's /usr/bin/chromium driven by
// playwright-core) on a phone-sized viewport with a fake camera, and prints one JSON report on stdout.
// Used by tests/browser/test_vital_scan_page.py:
//
//   node web/scan-check.mjs --url 'http://127.0.0.1:5000/vital-scan/#scanToken=...' \
//     --return-origin https://partner.example --shots .devstack/screenshots/vital-scan \
//     (--video face.y4m | --deny-camera) [--outage N] [--fail-measurement] [--timeout-ms 150000]
//
// --video: Chromium's camera plays the .y4m file (--use-fake-device-for-media-stream,
//   --use-file-for-fake-video-capture, --use-fake-ui-for-media-stream); the driver clicks Start, waits for
//   the results and clicks Continue.
// --deny-camera: the camera permission prompt is denied (--deny-permission-prompts); the driver clicks
//   Start, waits for the camera message and clicks Exit.
// --guidance-only (with --video): records the guidance of the preview until it says --expect-guidance (at most
// 30 s), then 4 s more (nothing else may follow it, a measurement least of all), then exits (as --no-face).
// --no-face (with --video of something else): waits for the guidance, clicks Try again, reloads (resume),
//   starts again and exits; without a returnUrl the page shows its exit message (no --return-origin needed).
// --outage N: the first N reads of the session (GET /session) are answered 503 here, as a restarting server
//   would answer (fault injection; every other call reaches the stack). The report's outage says what the
//   page showed meanwhile; where it offered Try again, the driver clicks it, then goes on as above.
// --fail-measurement (with --video): the first sending of the trace is answered 503 here; the driver waits
//   for the page's error and clicks Try again, which sends the same trace again (measurementsSent: the
//   sha256 of each trace sent: its fps, t and rgb).
// --expect-scan-on (with --video of a pulsing face, or of one without a pulse): the server answers the 30 s trace
//   scanOn (or "try again" weak, and the same capture goes on); the driver records what the page shows 3 s later
//   (scanningOn: guidance and progress label, screenshot 3-scanning-on) and goes on to the results; with
//   --finish-scan-on it then clicks Finish now.
// --expect-retry (with --video of a face without a pulse): the server answers "try again"; the driver waits
//   for the page to say so (afterRetry), clicks Try again and goes on to the results. measurements: each
//   body's {frames, seconds, extends, recording} (extends: the body before it is its beginning, frame for
//   frame; recording: the body says the camera is still recording).
// --answer-retry REASON (with --expect-retry): the first measurement is answered here, as the server would answer
//   a session's last "try again": {"status": "in_progress", "retry": REASON, "retriesLeft": 0}. After Try again the
//   driver waits for the last try's capture to begin (lastTry: its message and guidance), then exits.
// Either way it waits for the navigation to --return-origin, which it answers itself (route), so no
// https server is needed. Requests to any other non-loopback host are aborted and recorded in offHost.
// Report (cspViolations: Content-Security-Policy violations; hostedErrors: each hosted answer of 400 or more,
// {call, status, requestId (the platform's x-request-id; none when the emulator itself failed), body}): {addressAfterLoad, lang, introText, startButton, guidanceSeen, messages, cameraMessage,
// resultsText, metrics, returnUrl, hosted (method + path of each hosted API call), afterRetry, scanningOn, measurements, measurement ({fps,
// frames, seconds, keys}; the body itself is saved as trace.json beside the screenshots), backend, offHost, failed, pageErrors, console, shots, timings}.
import { check, localOnly, options, recordProblems } from './headless.mjs'
import { createHash } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const opts = options('scan-check', {
  url: 'string', video: 'path', 'deny-camera': 'flag', 'no-face': 'flag', 'guidance-only': 'flag',
  'return-origin': 'string', shots: 'path', 'timeout-ms': 'number', outage: 'number',
  'fail-measurement': 'flag', 'expect-guidance': 'string', 'expect-retry': 'flag', 'expect-scan-on': 'flag',
  'finish-scan-on': 'flag', 'answer-retry': 'string',
}, { timeoutMs: 150000, width: 390, height: 844, outage: 0 }, [])
if (opts.guidanceOnly) opts.noFace = true
if (!opts.url || !opts.shots || !(opts.video || opts.denyCamera) || !(opts.returnOrigin || opts.noFace)) {
  console.error('scan-check: --url, --shots, --video or --deny-camera, and --return-origin (unless --no-face) are required')
  process.exit(2)
}
mkdirSync(opts.shots, { recursive: true })

const media = opts.denyCamera
  ? ['--use-fake-device-for-media-stream', '--deny-permission-prompts']
  : ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream', `--use-file-for-fake-video-capture=${opts.video}`]

const unavailable = (route) => route.fulfill({ status: 503, contentType: 'application/json',
  body: JSON.stringify({ error: { code: 'unavailable', message: 'Service unavailable (injected by scan-check)' } }) })

const report = { hosted: [], hostedErrors: [], offHost: [], failed: [], pageErrors: [], console: [], guidanceSeen: [],
  messages: [], measurements: [], shots: [], timings: {} }
const bodies = [] // every trace sent, to compare each with the one before
const started = Date.now()
const mark = (name) => { report.timings[name] = Date.now() - started }
await check('scan-check', report, async (launchHere) => {
  const context = await launchHere(['--autoplay-policy=no-user-gesture-required', ...media], {
    viewport: { width: opts.width, height: opts.height },
    deviceScaleFactor: 1,
    isMobile: true,
    hasTouch: true,
  })
  let returned = null
  let outageLeft = opts.outage
  let measurementFailures = opts.failMeasurement ? 1 : 0
  let retryAnswers = opts.answerRetry ? 1 : 0
  const returnedSeen = new Promise((resolveReturn) => {
    context.route('**/*', (route) => {
      const u = route.request().url()
      if (opts.returnOrigin && u.startsWith(opts.returnOrigin + '/')) {
        returned = u
        resolveReturn(u)
        return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>partner</title><p>back at the partner</p>' })
      }
      if (outageLeft > 0 && route.request().method() === 'GET' && new URL(u).pathname === '/api/hosted/vital-scan/session') {
        outageLeft -= 1
        return unavailable(route)
      }
      if (measurementFailures > 0 && new URL(u).pathname === '/api/hosted/vital-scan/measurement') {
        measurementFailures -= 1
        return unavailable(route)
      }
      if (retryAnswers > 0 && new URL(u).pathname === '/api/hosted/vital-scan/measurement') {
        retryAnswers -= 1
        return route.fulfill({ status: 200, contentType: 'application/json',
          body: JSON.stringify({ status: 'in_progress', retry: opts.answerRetry, retriesLeft: 0 }) })
      }
      return localOnly(route, report)
    })
  })
  const page = context.pages()[0] || await context.newPage()
  page.on('request', (r) => {
    const u = new URL(r.url())
    if (u.pathname.startsWith('/api/hosted/vital-scan/')) {
      if (u.pathname.endsWith('/measurement')) {
        try {
          const body = JSON.parse(r.postData() || '{}')
          const sent = JSON.stringify([body.fps, body.t, body.rgb])
          report.measurementsSent = [...(report.measurementsSent || []), createHash('sha256').update(sent).digest('hex')]
          writeFileSync(join(opts.shots, 'trace.json'), JSON.stringify(body)) // to look at by hand
          report.measurement = { keys: Object.keys(body).sort(), fps: body.fps, frames: body.t.length,
            seconds: body.t[body.t.length - 1] / 1000, meanRgb: [0, 1, 2].map((c) => body.rgb.reduce((s, v) => s + v[c], 0) / body.rgb.length) }
          const before = bodies[bodies.length - 1]
          const head = (b, n) => JSON.stringify([b.t.slice(0, n), b.rgb.slice(0, n)])
          report.measurements.push({ frames: body.t.length, seconds: body.t[body.t.length - 1] / 1000,
            extends: Boolean(before && before.t.length < body.t.length && head(before, before.t.length) === head(body, before.t.length)),
            recording: body.recording === true })
          bodies.push(body)
        } catch (e) { report.measurement = { error: String(e) } }
      }
    }
  })
  // hosted: the calls of the flow, in the order they were answered; one answered 429 or 5xx is only in
  // hostedErrors (the page tries it again).
  page.on('response', async (r) => {
    const u = new URL(r.url())
    if (!u.pathname.startsWith('/api/hosted/vital-scan/')) return
    const call = `${r.request().method()} ${u.pathname}${u.search}`
    const status = r.status()
    if (status < 400) { report.hosted.push(call); return }
    const error = { call, status, requestId: r.headers()['x-request-id'] || null }
    report.hostedErrors.push(error)
    if (status !== 429 && status < 500) report.hosted.push(call)
    error.body = (await r.text().catch(() => '')).slice(0, 300)
  })
  await recordProblems(page, report)
  const cspSeen = async () => { report.cspViolations = [...(report.cspViolations || []), ...(await page.evaluate(() => window.__csp || []))] }
  const shot = async (name) => {
    const path = join(opts.shots, `${name}.png`)
    await page.screenshot({ path, fullPage: true })
    report.shots.push(path)
  }
  const visible = (selector) => page.locator(selector).isVisible()
  const text = (selector) => page.locator(selector).innerText().catch(() => '')
  // Everything the page said while scanning, in order, once each.
  const watch = setInterval(async () => {
    try {
      const [g, m] = await Promise.all([text('#guidance'), text('#message')])
      const last = (list) => list[list.length - 1]
      if (g && last(report.guidanceSeen) !== g) report.guidanceSeen.push(g)
      if (m && last(report.messages) !== m) report.messages.push(m)
    } catch { /* navigating */ }
  }, 250)

  await page.goto(opts.url, { waitUntil: 'load', timeout: 30000 })
  if (opts.outage) {
    // The page tries again by itself for a while; past that it says so and offers Try again.
    await page.locator('#start:visible, #retry:visible').first().waitFor({ timeout: 30000 })
    const retryShown = await visible('#retry')
    report.outage = { retryShown, message: await text('#message'), sessionReads: report.hostedErrors.length + report.hosted.length,
      focused: await page.evaluate(() => document.activeElement && document.activeElement.id) }
    if (retryShown) {
      await shot('0-unavailable')
      await page.locator('#retry').click()
    }
  }
  await page.locator('#start').waitFor({ state: 'visible', timeout: 30000 })
  mark('ready')
  report.addressAfterLoad = page.url()
  report.lang = await page.evaluate(() => document.documentElement.lang)
  report.introText = await text('main')
  report.startButton = await page.locator('#start').evaluate((b) => {
    const s = getComputedStyle(b), r = b.getBoundingClientRect()
    return { text: b.textContent, focused: document.activeElement === b, color: s.color, background: s.backgroundColor,
      width: r.width, height: r.height }
  })
  report.pageWidth = await page.evaluate(() => document.documentElement.scrollWidth)
  await shot('1-intro')
  await page.locator('#start').click()

  if (opts.guidanceOnly) {
    // Whatever the guidance says (guidanceSeen) until the expected advice, and 4 s after it; then Exit.
    await page.locator('#camera').waitFor({ state: 'visible', timeout: 30000 })
    await page.locator('#guidance').waitFor({ state: 'visible', timeout: 30000 })
    if (opts.expectGuidance) {
      await page.waitForFunction((says) => document.getElementById('guidance').textContent.includes(says),
        opts.expectGuidance, { timeout: 30000 }).catch(() => {})  // the test reports what was seen instead
      await page.waitForTimeout(4000)
    } else {
      await page.waitForTimeout(10000)
    }
    await shot('2-guidance')
    await page.locator('#exit').click()
    await page.locator('#exit').waitFor({ state: 'hidden', timeout: 30000 })
    await cspSeen()
  } else if (opts.noFace) {
    // A camera without a face: the guidance says so. Then the user leaves (reload) and comes back: the
    // session resumes (the token is kept for the tab) and Exit, without a returnUrl, shows the exit page.
    await page.locator('#guidance.warn').waitFor({ state: 'visible', timeout: 60000 })
    report.warning = await text('#guidance')
    await page.waitForTimeout(1500) // several detections: still no face, and nothing recorded
    report.progressWithoutFace = await page.locator('#progress').evaluate((p) => Number(p.value))
    report.retryShown = await visible('#retry')
    await shot('2-no-face')
    // Try again: the camera restarts (start again: no change while in progress).
    await page.locator('#retry').click()
    await page.waitForFunction(() => document.getElementById('guidance').textContent === '', null, { timeout: 10000 })
    await page.locator('#guidance.warn').waitFor({ state: 'visible', timeout: 60000 })
    await cspSeen()
    await page.reload({ waitUntil: 'load' })
    await page.locator('#start').waitFor({ state: 'visible', timeout: 30000 })
    report.addressAfterReload = page.url()
    await page.locator('#start').click()
    await page.locator('#guidance.warn').waitFor({ state: 'visible', timeout: 60000 })
    await page.locator('#exit').click()
    await page.locator('#exit').waitFor({ state: 'hidden', timeout: 30000 })
    report.exitMessage = await text('#message')
    report.cameraShown = await visible('#camera')
    report.focused = await page.evaluate(() => document.activeElement && document.activeElement.id)
    await shot('3-exited')
    await cspSeen()
  } else if (opts.denyCamera) {
    await page.locator('#exit').waitFor({ state: 'visible', timeout: 30000 })
    await page.waitForFunction(() => document.getElementById('retry') && !document.getElementById('retry').hidden, null,
      { timeout: 30000 })
    report.cameraMessage = await text('#message')
    await cspSeen()
    report.focused = await page.evaluate(() => document.activeElement && document.activeElement.id)
    await shot('2-camera-denied')
    await page.locator('#exit').click()
  } else {
    await page.locator('#camera').waitFor({ state: 'visible', timeout: 30000 })
    // The first moments of the capture, then the progress a few seconds later.
    await page.waitForFunction(() => Number(document.getElementById('progress').value) >= 10, null, { timeout: 60000 })
      .then(() => mark('capturing'), () => {})
    report.backend = await page.evaluate(() => window.__vitalScanBackend || null)
    await shot('2-capturing')
    if (opts.failMeasurement) {
      await page.waitForFunction(() => document.getElementById('camera').hidden && !document.getElementById('retry').hidden,
        null, { timeout: opts.timeoutMs })
      report.afterFailedSend = { message: await text('#message'), retryShown: await visible('#retry'),
        exitShown: await visible('#exit'), focused: await page.evaluate(() => document.activeElement && document.activeElement.id) }
      await shot('3-send-failed')
      await page.locator('#retry').click()
    }
    if (opts.expectScanOn) {
      const until = Date.now() + opts.timeoutMs
      while (!report.measurements.length && Date.now() < until) await page.waitForTimeout(250)
      await page.waitForTimeout(3000)
      mark('scanning-on')
      report.scanningOn = { guidance: await text('#guidance'), progress: await text('#progress-label'),
        cameraShown: await visible('#camera'), finishShown: await visible('#finish'), exitShown: await visible('#exit') }
      await shot('3-scanning-on')
      if (opts.finishScanOn) await page.locator('#finish').click()
    }
    if (opts.expectRetry) {
      // The first trace sent, the page answered: what the user sees while the same capture goes on.
      const until = Date.now() + opts.timeoutMs
      while (!report.measurements.length && Date.now() < until) await page.waitForTimeout(250)
      await page.waitForTimeout(3000)
      await shot('3a-scanning-on')
      await page.waitForFunction(() => document.getElementById('camera').hidden && !document.getElementById('retry').hidden,
        null, { timeout: opts.timeoutMs })
      mark('retry')
      report.afterRetry = { message: await text('#message'), retryShown: await visible('#retry'),
        focused: await page.evaluate(() => document.activeElement && document.activeElement.id) }
      await shot('3b-try-again')
      await page.locator('#retry').click()
      await page.locator('#camera').waitFor({ state: 'visible', timeout: 30000 })
      if (opts.answerRetry) {
        await page.waitForFunction(() => Number(document.getElementById('progress').value) > 0, null, { timeout: 60000 })
        report.lastTry = { guidance: await text('#guidance'), progress: await text('#progress-label') }
        await shot('3c-last-try')
        await cspSeen()
        await page.locator('#exit').click() // returns with status=exited: the session stays in progress
      }
    }
    if (!opts.answerRetry) {
      await page.locator('#continue').waitFor({ state: 'visible', timeout: opts.timeoutMs })
      mark('results')
      report.resultsText = await text('#results')
      report.metrics = await page.$$eval('#metrics dd', (dds) => Object.fromEntries(dds.map((d) => [d.dataset.metric, d.textContent])))
      report.focused = await page.evaluate(() => document.activeElement && document.activeElement.id)
      await shot('4-results')
      await cspSeen()
      await page.locator('#continue').click()
    }
  }
  if (!opts.noFace) await Promise.race([returnedSeen, new Promise((_, reject) => setTimeout(() => reject(new Error('no navigation to the return origin')), 30000))])
  if (!opts.noFace) {
    await page.waitForURL((u) => u.href.startsWith(opts.returnOrigin + '/'), { waitUntil: 'load', timeout: 30000 })
    report.landedOn = await page.evaluate(() => document.title)
  }
  mark('returned')
  clearInterval(watch)
  report.returnUrl = returned
}, { describe: (e) => String(e && e.stack || e), finish: () => { report.timings.total = Date.now() - started } })
