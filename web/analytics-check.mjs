// Drives the analytics dashboard (/admin/analytics) in headless Chromium (Debian's /usr/bin/chromium driven by
// playwright-core) the way an administrator does, and prints one JSON report on stdout. Used by
// tests/browser/test_analytics_page.py:
//
//   node web/analytics-check.mjs --url http://127.0.0.1:5000/admin/analytics --email admin@... --password ... \
//     [--wrong-password WRONG] --shots .devstack/screenshots/analytics-admin [--step preset:7] [--step range:2025-06-10..2025-06-01] \
//     [--step client:demo-fitness] [--step viewport:390x844] [--step reload] [--step signout] [--timeout-ms 60000]
//
// It opens the page, (with --wrong-password: first signs in with that one and waits for the form's message),
// types the email and password into the sign-in form and submits it, waits until the
// dashboard has loaded (or the page refused), then runs each --step in order:
//   preset:N          clicks "Last N days"
//   range:START..END  types the two dates into From and To and clicks Apply
//   client:ID         picks the client in the client picker (platform administrators)
//   viewport:WxH      resizes the window (nothing reloads)
//   reload            reloads the page (the sign-in is kept for the tab) and waits for the dashboard
//   signout           clicks Sign out and waits for the sign-in form
// After the sign-in form shows, after signing in and after every step it takes a full-page screenshot and a
// snapshot of what is on screen, read as a person reads it (innerText of what is visible; the "Show as a table"
// parts are opened to read them, then closed again): the view, the header, the messages, the picker, the
// range, every card, every table, and per chart the canvas's painted and coloured pixels.
// Requests to any host but 127.0.0.1/localhost/[::1] are recorded in offHost and aborted.
// Report: {finalUrl, status, title, snapshots: [{name, shot, ...}], api (status, method, path and query of each
// /api/ call), auth (Auth calls, path only), requests, offHost, failed, console, pageErrors, cspViolations,
// timings}.
import { check, localOnly, options, recordProblems } from './headless.mjs'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'

const opts = options('analytics-check', {
  url: 'string', email: 'string', password: 'string', 'wrong-password': 'string', shots: 'path', step: 'list',
  'timeout-ms': 'number',
  width: 'number', height: 'number',
}, { step: [], timeoutMs: 60000, width: 1280, height: 900 }, ['url', 'email', 'password', 'shots'])
mkdirSync(opts.shots, { recursive: true })

const report = { snapshots: [], api: [], auth: [], requests: [], offHost: [], failed: [], console: [], pageErrors: [],
  cspViolations: [], timings: {} }
const started = Date.now()
const mark = (name) => { report.timings[name] = Date.now() - started }

await check('analytics-check', report, async (launchHere) => {
  const context = await launchHere([], { viewport: { width: opts.width, height: opts.height }, deviceScaleFactor: 1 })
  await context.route('**/*', (route) => localOnly(route, report))
  const page = context.pages()[0] || await context.newPage()
  page.on('request', (r) => {
    const u = new URL(r.url())
    report.requests.push(`${r.method()} ${u.origin}${u.pathname}`)
  })
  page.on('response', (r) => {
    const u = new URL(r.url())
    const method = r.request().method()
    if (u.pathname.startsWith('/api/')) report.api.push(`${r.status()} ${method} ${u.pathname}${u.search}`)
    else if (/identitytoolkit|securetoken/.test(u.pathname)) report.auth.push(`${r.status()} ${method} ${u.origin}${u.pathname}`)
  })
  await recordProblems(page, report)

  const loads = () => page.evaluate(() => Number(document.body.dataset.loads || 0))
  const waitLoadsAbove = (n) => page.waitForFunction((before) => Number(document.body.dataset.loads || 0) > before,
    n, { timeout: opts.timeoutMs })
  const waitView = (...views) => page.waitForFunction((vs) => vs.includes(document.body.dataset.view), views,
    { timeout: opts.timeoutMs })

  // What is on screen now, as text (visible elements only) and pixels.
  const snapshot = async (name) => {
    const shot = join(opts.shots, `${String(report.snapshots.length + 1).padStart(2, '0')}-${name}.png`)
    await page.screenshot({ path: shot, fullPage: true })
    report.cspViolations.push(...await page.evaluate(() => { const seen = window.__csp || []; window.__csp = []; return seen }))
    // Open every "Show as a table" (as a reader clicks it), read, and close them again.
    const closed = await page.$$eval('details:not([open])', (ds) => ds.filter((d) => d.checkVisibility()).map((d) => {
      d.open = true
      return d.id || d.querySelector('table').id
    }))
    const snap = await page.evaluate(() => {
      const $ = (id) => document.getElementById(id)
      const seen = (node) => !!node && node.checkVisibility()
      const text = (id) => (seen($(id)) ? $(id).innerText.trim() : null)
      const rows = (id) => (seen($(id)) ? [...$(id).rows].map((r) => [...r.cells].map((c) => c.innerText.trim())) : null)
      const caption = (id) => (seen($(id)) && $(id).caption ? $(id).caption.innerText.trim() : null)
      const pixels = (id) => {
        const canvas = $(id)
        if (!seen(canvas)) return null
        const { width, height } = canvas
        // Read a copy (a canvas made for reading), so that the chart's own canvas is left alone.
        const copy = Object.assign(document.createElement('canvas'), { width, height })
        const context = copy.getContext('2d', { willReadFrequently: true })
        context.drawImage(canvas, 0, 0)
        const data = context.getImageData(0, 0, width, height).data
        let painted = 0, coloured = 0
        for (let i = 0; i < data.length; i += 4) {
          if (data[i + 3] === 0) continue
          painted++
          const hi = Math.max(data[i], data[i + 1], data[i + 2]), lo = Math.min(data[i], data[i + 1], data[i + 2])
          if (data[i + 3] > 128 && hi - lo > 60) coloured++ // bars and lines, not the grey axes and text
        }
        const box = canvas.getBoundingClientRect()
        return { width, height, shownWidth: Math.round(box.width), shownHeight: Math.round(box.height), painted, coloured,
          label: canvas.getAttribute('aria-label') }
      }
      const cards = (selector) => Object.fromEntries([...document.querySelectorAll(selector)].filter(seen)
        .map((c) => [c.dataset.metric, c.querySelector('dd').innerText.trim()]))
      const modules = Object.fromEntries([...document.querySelectorAll('#engagement-cards [data-module]')].filter(seen)
        .map((m) => [m.dataset.module, {
          title: m.querySelector('h4').innerText.trim(),
          ...Object.fromEntries([...m.querySelectorAll('[data-field]')].map((f) => [f.dataset.field, f.querySelector('dd').innerText.trim()])),
        }]))
      const picker = $('client')
      return {
        view: document.body.dataset.view, loads: Number(document.body.dataset.loads || 0), url: location.href,
        busy: $('main').getAttribute('aria-busy'),
        headings: [...document.querySelectorAll('h1, h2, h3')].filter(seen).map((h) => h.innerText.trim()),
        message: text('message'), who: text('who'), signOutShown: seen($('sign-out')), signInShown: seen($('signin-form')),
        signinError: text('signin-error'), denied: text('denied-text'), clientTitle: text('client-title'),
        updated: text('updated'),
        pickerShown: seen(picker),
        pickerOptions: [...picker.options].map((o) => ({ value: o.value, label: o.label })),
        pickerValue: picker.value, pickerLabel: picker.selectedOptions[0] ? picker.selectedOptions[0].label : null,
        start: seen($('start')) ? $('start').value : null, end: seen($('end')) ? $('end').value : null,
        rangeError: text('range-error'),
        errors: Object.fromEntries(['overview-error', 'engagement-error', 'assessments-error', 'functional-error']
          .map((id) => [id, text(id)]).filter(([, t]) => t)),
        overview: cards('#overview-cards [data-metric]'),
        engagementRange: text('engagement-range'),
        engagement: modules,
        tables: Object.fromEntries(['risk-table', 'age-table', 'daily-table', 'assessments-table', 'by-client-table',
          'functional-table'].map((id) => [id, rows(id)])),
        captions: Object.fromEntries(['daily-table', 'functional-table'].map((id) => [id, caption(id)])),
        charts: { risk: pixels('risk-chart'), age: pixels('age-chart'), daily: pixels('daily-chart') },
        mainText: $('main').innerText,
        focused: document.activeElement ? document.activeElement.id || document.activeElement.tagName : null,
        pageWidth: document.documentElement.scrollWidth, viewportWidth: innerWidth,
      }
    })
    await page.$$eval('details[open]', (ds, ids) => ds.forEach((d) => {
      if (ids.includes(d.id || d.querySelector('table').id)) d.open = false
    }), closed)
    report.snapshots.push({ name, shot, ...snap })
  }

  const response = await page.goto(opts.url, { waitUntil: 'load', timeout: opts.timeoutMs })
  report.status = response ? response.status() : null
  report.finalUrl = page.url()
  report.title = await page.title()
  await waitView('signin', 'error')
  mark('signInShown')
  await snapshot('signin-form')

  if (opts.wrongPassword) { // a mistyped password first: the form says so and stays
    await page.getByLabel('Email', { exact: true }).fill(opts.email)
    await page.getByLabel('Password', { exact: true }).fill(opts.wrongPassword)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.waitForFunction(() => document.getElementById('signin-error').textContent !== '', null,
      { timeout: opts.timeoutMs })
    await snapshot('wrong-password')
  }
  await page.getByLabel('Email', { exact: true }).fill(opts.email)
  await page.getByLabel('Password', { exact: true }).fill(opts.password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  await waitView('dashboard', 'denied')
  if (await page.evaluate(() => document.body.dataset.view) === 'dashboard') await waitLoadsAbove(0)
  mark('signedIn')
  await snapshot('signed-in')

  for (const step of opts.step) {
    const [kind, arg = ''] = step.split(/:(.*)/s)
    const before = await loads()
    if (kind === 'preset') {
      await page.getByRole('button', { name: `Last ${arg} days`, exact: true }).click()
      await waitLoadsAbove(before)
    } else if (kind === 'range') {
      const [from, to] = arg.split('..')
      await page.getByLabel('From (UTC)', { exact: true }).fill(from)
      await page.getByLabel('To (UTC)', { exact: true }).fill(to)
      await page.getByRole('button', { name: 'Apply', exact: true }).click()
      await waitLoadsAbove(before)
    } else if (kind === 'client') {
      await page.getByLabel('Client', { exact: true }).selectOption(arg)
      await waitLoadsAbove(before)
    } else if (kind === 'viewport') {
      const [width, height] = arg.split('x').map(Number)
      await page.setViewportSize({ width, height })
      await page.waitForTimeout(400) // the charts follow the new size
    } else if (kind === 'reload') {
      await page.reload({ waitUntil: 'load', timeout: opts.timeoutMs })
      await waitView('dashboard', 'denied', 'signin')
      if (await page.evaluate(() => document.body.dataset.view) === 'dashboard') await waitLoadsAbove(0)
    } else if (kind === 'signout') {
      await page.getByRole('button', { name: 'Sign out', exact: true }).click()
      await waitView('signin')
    } else {
      throw new Error(`unknown step ${step}`)
    }
    mark(step)
    await snapshot(step.replace(/[^a-z0-9.-]+/gi, '-'))
  }
}, { finish: () => { report.timings.total = Date.now() - started } })
