// The administrators' analytics dashboard (public/admin/analytics/index.html, served at /admin/analytics;
// CONTRACT 6, spec 4.10). Bundled by web/build.mjs into public/admin/analytics/analytics.js (+ analytics.css)
// with the Firebase JS SDK's Auth and Chart.js; nothing is loaded from anywhere but this origin (and the Auth
// service, or the Auth emulator under `make serve`).
//
// 1. GET /api/analytics/config gives the Firebase web settings and, on the emulators, the Auth emulator's URL.
// 2. The administrator signs in with email and password (Firebase Auth, kept for this tab only).
// 3. The ID token's claims give the default client (clientId) and whether the client picker shows
//    (platformAdmin === true); GET /api/analytics/clients lists what the picker offers (a player gets 403,
//    whose message is shown instead of the dashboard).
// 4. Overview, engagement insights, assessment counts and functional tests of the chosen client and range
//    (default: the last 30 days, UTC) are drawn as cards, charts (Chart.js) and tables.
//
// For the browser test (web/analytics-check.mjs): <body data-view="loading|signin|denied|dashboard|error">
// and data-loads, the number of finished dashboard loads.
import './analytics.css'
import { initializeApp } from 'firebase/app'
import {
  browserSessionPersistence, connectAuthEmulator, getIdToken, getIdTokenResult, initializeAuth, onAuthStateChanged,
  signInWithEmailAndPassword, signOut,
} from 'firebase/auth'
import {
  BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement,
  Tooltip,
} from 'chart.js'

Chart.register(BarController, BarElement, CategoryScale, Legend, LinearScale, LineController, LineElement,
  PointElement, Tooltip)

const DEFAULT_DAYS = 30
const RANGE_BLOCKS = ['engagement-block', 'assessments-block', 'functional-block'] // what the range changes
const DAY_MS = 86400000
const DAY = /^\d{4}-\d{2}-\d{2}$/

const RISK_LEVELS = [
  ['level1', 'Level 1 (low)', '#1b7f3b'],
  ['level2', 'Level 2 (mild)', '#8a7400'],
  ['level3', 'Level 3 (moderate)', '#c25400'],
  ['level4', 'Level 4 (high)', '#b3261e'],
]
const AGE_GROUPS = ['30-39', '40-49', '50-59', '60-69', '70-79', '80-89', '90+']
// The modules the platform has (aiNutrition and waterIntake always report zeros: not shown), their totals
// and their colour and point style in the daily chart (shapes too, not colour alone).
const MODULES = [
  { key: 'lessons', label: 'Lessons', color: '#0b57d0', point: 'circle',
    fields: [['activeUsers', 'Active users'], ['totalPlays', 'Plays'], ['completedPlays', 'Completed plays']] },
  { key: 'aiMove', label: 'AI Move', color: '#1b7f3b', point: 'rect',
    fields: [['activeUsers', 'Active users'], ['totalSessions', 'Sessions'], ['completedSessions', 'Completed sessions'],
      ['totalReps', 'Reps']] },
  { key: 'wellnessChat', label: 'Wellness chat', color: '#8e3596', point: 'triangle',
    fields: [['activeUsers', 'Active users'], ['totalChats', 'Chats'], ['totalMessages', 'Messages']] },
  { key: 'vitalScan', label: 'Vital Scan', color: '#c25400', point: 'rectRot',
    fields: [['activeUsers', 'Active users'], ['totalScans', 'Scans'], ['completedScans', 'Completed scans']] },
]
const ORIGINS = [['app', 'In the app'], ['clinician', 'By a clinician'], ['partner', 'By a partner']]
const STATES = [['total', 'Total'], ['completed', 'Completed'], ['inProgress', 'In progress'], ['notStarted', 'Not started']]
const MEASURES = [['chairStands', 'Chair stands (30 s)'], ['tandemStanceSeconds', 'Tandem stance (s)'],
  ['singleLegStanceSeconds', 'Single-leg stance (s)'], ['tandemWalkSteps', 'Tandem walk (steps)']]

const SIGN_IN_ERRORS = {
  'auth/invalid-credential': 'The email address or the password is wrong.',
  'auth/invalid-login-credentials': 'The email address or the password is wrong.',
  'auth/wrong-password': 'The email address or the password is wrong.',
  'auth/user-not-found': 'The email address or the password is wrong.',
  'auth/invalid-email': 'Enter a valid email address.',
  'auth/missing-password': 'Enter your password.',
  'auth/user-disabled': 'This account is disabled.',
  'auth/too-many-requests': 'Too many attempts. Wait a moment, then try again.',
  'auth/network-request-failed': 'The sign-in service could not be reached. Check the connection and try again.',
}

const $ = (id) => document.getElementById(id)
const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 })
const decimal = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 })
const count = (n) => integer.format(n)
const oneDecimal = (n) => (n === null || n === undefined ? '–' : decimal.format(n))

const state = {
  auth: null,
  user: null,
  claims: {},
  clients: [],
  clientId: null,
  session: 0, // bumps on every sign-in and sign-out: answers for an earlier session are dropped
  loadSeq: 0, // bumps on every dashboard load: only the newest one renders
  loads: 0,
  charts: {},
}

// ------------------------------------------------------------------------------------------- small helpers

class ApiError extends Error {
  constructor (status, message) { super(message); this.status = status }
}

function errorText (body) {
  if (!body) return ''
  if (typeof body.error === 'string') return body.error
  if (body.error && typeof body.error.message === 'string') return body.error.message
  return typeof body.message === 'string' ? body.message : ''
}

async function api (path) {
  let token
  try {
    token = await getIdToken(state.user) // renewed by the SDK when it is about to expire
  } catch {
    throw new ApiError(0, 'Your sign-in could not be renewed. Check the connection, or sign out and sign in again.')
  }
  let response
  try {
    response = await fetch(path, { headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
      cache: 'no-store' })
  } catch {
    throw new ApiError(0, 'The server could not be reached. Check the connection and try again.')
  }
  let body = null
  try { body = await response.json() } catch { /* not JSON */ }
  if (!response.ok) {
    throw new ApiError(response.status, errorText(body) || `The server answered ${response.status}.`)
  }
  return body
}

function el (tag, attrs = {}, ...children) {
  const node = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue
    if (name === 'class') node.className = value
    else if (name === 'text') node.textContent = value
    else node.setAttribute(name, value === true ? '' : value)
  }
  for (const child of children) node.append(child)
  return node
}

// A table with a caption, one header row and rows of cells (the first cell of a row is its header).
function fillTable (table, caption, headers, rows) {
  table.replaceChildren(
    el('caption', { text: caption }),
    el('thead', {}, el('tr', {}, ...headers.map((h) => el('th', { scope: 'col', text: h })))),
    el('tbody', {}, ...rows.map(([first, ...cells]) =>
      el('tr', {}, el('th', { scope: 'row', text: first }), ...cells.map((c) => el('td', { text: c }))))),
  )
}

const isoDay = (date) => date.toISOString().slice(0, 10)
const todayUtc = () => isoDay(new Date())
const daysBefore = (day, n) => isoDay(new Date(Date.parse(`${day}T00:00:00Z`) - n * DAY_MS))
const humanDay = (day) => new Date(`${day}T00:00:00Z`).toLocaleDateString('en-US',
  { timeZone: 'UTC', year: 'numeric', month: 'short', day: 'numeric' })

function say (text) { $('message').textContent = text; $('message').hidden = !text }

function show (view) {
  document.body.dataset.view = view
  $('signin').hidden = view !== 'signin'
  $('denied').hidden = view !== 'denied'
  $('dashboard').hidden = view !== 'dashboard'
  $('account').hidden = !(view === 'denied' || view === 'dashboard')
  $('main').setAttribute('aria-busy', 'false')
}

// --------------------------------------------------------------------------------------------------- charts

function chartColors () {
  const style = getComputedStyle(document.body)
  return { ink: style.getPropertyValue('--muted').trim() || '#44444f', grid: '#e3e3ea', font: style.fontFamily }
}

function makeCharts () {
  if (state.charts.risk) return
  const { ink, grid, font } = chartColors()
  Chart.defaults.font.family = font
  Chart.defaults.font.size = 13
  Chart.defaults.color = ink
  Chart.defaults.animation = false
  Chart.defaults.maintainAspectRatio = false
  const scales = (yTitle) => ({
    x: { grid: { display: false } },
    y: { beginAtZero: true, ticks: { precision: 0 }, grid: { color: grid }, title: { display: true, text: yTitle } },
  })
  state.charts.risk = new Chart($('risk-chart'), {
    type: 'bar',
    data: { labels: RISK_LEVELS.map(([, label]) => label),
      datasets: [{ label: 'Players', data: [0, 0, 0, 0], backgroundColor: RISK_LEVELS.map(([, , c]) => c) }] },
    options: { plugins: { legend: { display: false } }, scales: scales('Players') },
  })
  state.charts.age = new Chart($('age-chart'), {
    type: 'bar',
    data: { labels: AGE_GROUPS, datasets: [{ label: 'Players', data: AGE_GROUPS.map(() => 0), backgroundColor: '#0b57d0' }] },
    options: { plugins: { legend: { display: false } }, scales: scales('Players') },
  })
  state.charts.daily = new Chart($('daily-chart'), {
    type: 'line',
    data: { labels: [], datasets: MODULES.map((m) => ({
      label: m.label, data: [], borderColor: m.color, backgroundColor: m.color, pointStyle: m.point,
      pointRadius: 3, borderWidth: 2, tension: 0,
    })) },
    options: {
      interaction: { mode: 'index', intersect: false },
      plugins: { legend: { position: 'bottom', labels: { usePointStyle: true } } },
      scales: { ...scales('Active users'), x: { grid: { display: false }, ticks: { maxRotation: 0, autoSkipPadding: 12 } } },
    },
  })
}

function setChart (chart, labels, series) {
  chart.data.labels = labels
  series.forEach((data, i) => { chart.data.datasets[i].data = data })
  chart.update('none')
}

// ---------------------------------------------------------------------------------------------- rendering

function renderOverview (o) {
  const values = {
    totalLinkedPlayers: count(o.totalLinkedPlayers),
    highRiskCount: count(o.highRiskCount),
    urgentAttentionCount: count(o.urgentAttentionCount),
    averageAge: o.averageAge > 0 ? [oneDecimal(o.averageAge), ' years'] : ['–', ' no dates of birth'],
    assessmentCompletionRate: `${oneDecimal(o.assessmentCompletionRate)}%`,
  }
  for (const card of $('overview-cards').querySelectorAll('[data-metric]')) {
    const value = values[card.dataset.metric]
    card.querySelector('dd').replaceChildren(...(Array.isArray(value)
      ? [value[0], el('span', { class: 'unit', text: value[1] })] : [value]))
  }
  const risk = RISK_LEVELS.map(([key]) => o.riskDistribution[key])
  const ages = AGE_GROUPS.map((group) => o.ageDistribution[group])
  setChart(state.charts.risk, RISK_LEVELS.map(([, label]) => label), [risk])
  setChart(state.charts.age, AGE_GROUPS, [ages])
  const riskText = RISK_LEVELS.map(([, label], i) => `${label}: ${count(risk[i])}`).join(', ')
  $('risk-chart').setAttribute('aria-label', `Players by fall-risk level of the latest assessment. ${riskText}.`)
  $('age-chart').setAttribute('aria-label',
    `Players by age group. ${AGE_GROUPS.map((g, i) => `${g}: ${count(ages[i])}`).join(', ')}.`)
  fillTable($('risk-table'), 'Players by fall-risk level', ['Level', 'Players'],
    RISK_LEVELS.map(([, label], i) => [label, count(risk[i])]))
  fillTable($('age-table'), 'Players by age group', ['Age group', 'Players'],
    AGE_GROUPS.map((group, i) => [group, count(ages[i])]))
}

function clearOverview () {
  for (const dd of $('overview-cards').querySelectorAll('dd')) dd.textContent = '–'
  if (state.charts.risk) {
    setChart(state.charts.risk, state.charts.risk.data.labels, [[]])
    setChart(state.charts.age, state.charts.age.data.labels, [[]])
  }
  $('risk-table').replaceChildren()
  $('age-table').replaceChildren()
}

function renderEngagement (e) {
  $('daily-figure').hidden = false
  const { startDate, endDate } = e.metadata
  $('engagement-range').textContent = startDate ? `${humanDay(startDate)} to ${humanDay(endDate)}` : 'all time'
  $('engagement-cards').replaceChildren(...MODULES.map((m) => {
    const totals = e[m.key]
    return el('section', { class: 'card module', 'data-module': m.key, 'aria-labelledby': `module-${m.key}` },
      el('h4', { id: `module-${m.key}` }, el('span', { class: `swatch ${m.point}`, 'aria-hidden': 'true' }), m.label),
      el('dl', {}, ...m.fields.map(([field, label]) => el('div', { 'data-field': field },
        el('dt', { text: label }), el('dd', { text: count(totals[field]) })))))
  }))
  for (const m of MODULES) $(`module-${m.key}`).querySelector('.swatch').style.background = m.color
  const days = e.dailyBreakdown
  setChart(state.charts.daily, days.map((d) => d.date), MODULES.map((m) => days.map((d) => d[m.key])))
  const peak = MODULES.map((m) => `${m.label} up to ${count(Math.max(0, ...days.map((d) => d[m.key])))}`).join(', ')
  $('daily-chart').setAttribute('aria-label',
    `Daily active users per module over ${days.length} days. ${peak} a day. The table below has every day.`)
  fillTable($('daily-table'), `Active users per day (${days.length} days, UTC)`,
    ['Date', ...MODULES.map((m) => m.label)],
    days.map((d) => [d.date, ...MODULES.map((m) => count(d[m.key]))]))
}

function clearEngagement () {
  $('engagement-range').textContent = ''
  $('engagement-cards').replaceChildren()
  $('daily-figure').hidden = true
  if (state.charts.daily) setChart(state.charts.daily, [], MODULES.map(() => []))
  $('daily-table').replaceChildren()
}

function renderAssessments (a) {
  const fall = a.assessments.fallRisk
  fillTable($('assessments-table'), 'Fall-risk assessments (the platform runs no cognitive or MSK assessments)',
    ['Created', ...STATES.map(([, label]) => label)],
    [['All', ...STATES.map(([key]) => count(fall[key]))],
      ...ORIGINS.map(([origin, label]) => [label, ...STATES.map(([key]) => count(fall.byOrigin[origin][key]))])])
  const table = $('by-client-table')
  const current = state.clients.find((c) => c.clientId === state.clientId)
  if (current && current.isOperator) { // the platform's broad view: every client's share
    fillTable(table, 'Fall-risk assessments by client', ['Client', ...STATES.map(([, label]) => label)],
      a.byClient.map((c) => [`${c.name} (${c.clientId})`, ...STATES.map(([key]) => count(c.fallRisk[key]))]))
  } else {
    table.replaceChildren()
  }
}

function renderFunctional (f) {
  const row = (label, results, averages) => [label, count(results), ...MEASURES.map(([key]) => oneDecimal(averages[key]))]
  fillTable($('functional-table'),
    `Averages per age group at completion${f.ungroupedResults ? `; ${count(f.ungroupedResults)} result(s) of players under 30 or without a date of birth are in no group` : ''}`,
    ['Age group', 'Results', ...MEASURES.map(([, label]) => label)],
    [...f.ageGroups.map((g) => row(g.ageGroup, g.results, g.averages)), row('All groups', f.overall.results, f.overall.averages)])
}

function clearRangeTables () {
  for (const id of ['assessments-table', 'by-client-table', 'functional-table']) $(id).replaceChildren()
}

function clientLabel (client) {
  if (client.isOperator) return `${client.name} (every client)`
  return `${client.name} (${client.clientId})${client.analytics ? '' : ', analytics off'}`
}

function renderHeading () {
  const client = state.clients.find((c) => c.clientId === state.clientId)
  const title = $('client-title')
  if (client && client.isOperator) title.textContent = 'All clients (platform view)'
  else title.textContent = client ? client.name : state.clientId
  title.title = state.clientId
}

// ---------------------------------------------------------------------------------------------- loading

function readRange () {
  return { start: $('start').value, end: $('end').value }
}

function setRange (days) {
  const end = todayUtc()
  $('end').value = end
  $('start').value = daysBefore(end, days - 1)
  boundPickers()
}

// The date pickers offer only an ordered range (typed dates still go to the API, which judges them).
function boundPickers () {
  $('start').max = $('end').value || ''
  $('end').min = $('start').value || ''
}

// Loads what the dashboard shows for the chosen client and range; `overview` also reloads the overview (it does
// not depend on the range). Only the newest load renders; every finished one bumps data-loads.
async function load ({ overview = true } = {}) {
  const seq = ++state.loadSeq
  const session = state.session
  const { start, end } = readRange()
  $('range-error').textContent = ''
  if (!start || !end) {
    $('range-error').textContent = 'Choose a start and an end date.'
    document.body.dataset.loads = String(++state.loads)
    return
  }
  $('main').setAttribute('aria-busy', 'true')
  $('updated').textContent = 'Loading…'
  history.replaceState(null, '', `${location.pathname}?${new URLSearchParams({ client: state.clientId, start, end })}`)
  const base = `/api/client/${encodeURIComponent(state.clientId)}/analytics`
  const query = `?startDate=${encodeURIComponent(start)}&endDate=${encodeURIComponent(end)}`
  const jobs = {
    engagement: api(`${base}/engagement-insights${query}`),
    assessments: api(`${base}/assessment-counts${query}`),
    functional: api(`${base}/functional-tests${query}`),
  }
  if (overview) jobs.overview = api(`${base}/overview`)
  const names = Object.keys(jobs)
  const settled = await Promise.allSettled(Object.values(jobs))
  if (seq !== state.loadSeq || session !== state.session) return
  const got = Object.fromEntries(names.map((name, i) => [name, settled[i]]))
  const failures = settled.filter((s) => s.status === 'rejected').map((s) => s.reason)

  // Refused altogether (not an administrator of this client, analytics off, signed out elsewhere): say so.
  if (failures.length === settled.length && failures.every((f) => f.status === 401 || f.status === 403)) {
    denied(failures[0].message)
    document.body.dataset.loads = String(++state.loads)
    return
  }
  const section = (name, errorId, render, clear) => {
    const result = got[name]
    if (!result) return
    if (result.status === 'fulfilled') {
      $(errorId).textContent = ''
      render(result.value)
    } else {
      clear()
      // A bad range is said once, next to the range (every range endpoint answers the same 400).
      $(errorId).textContent = result.reason.status === 400 ? '' : result.reason.message
    }
  }
  section('overview', 'overview-error', renderOverview, clearOverview)
  section('engagement', 'engagement-error', renderEngagement, clearEngagement)
  section('assessments', 'assessments-error', renderAssessments, () => {
    $('assessments-table').replaceChildren(); $('by-client-table').replaceChildren()
  })
  section('functional', 'functional-error', renderFunctional, () => $('functional-table').replaceChildren())
  // A refused range: its message next to the range, and no figures of another range below.
  const rangeError = failures.find((f) => f.status === 400)
  if (rangeError) {
    $('range-error').textContent = rangeError.message
    clearEngagement()
    clearRangeTables()
  }
  for (const id of RANGE_BLOCKS) $(id).hidden = Boolean(rangeError)
  const fresh = got.engagement.status === 'fulfilled' ? got.engagement.value.metadata.generatedAt : null
  $('updated').textContent = fresh
    ? `Updated ${new Date(fresh).toISOString().slice(11, 16)} UTC`
    : (failures.some((f) => f.status !== 400) ? 'Some figures could not be loaded.' : '')
  $('main').setAttribute('aria-busy', 'false')
  document.body.dataset.loads = String(++state.loads)
}

// ---------------------------------------------------------------------------------------- signed in or not

function denied (message) {
  show('denied')
  say('')
  $('denied-text').textContent = message
  $('denied-title').focus()
}

function resetDashboard () {
  clearOverview()
  clearEngagement()
  clearRangeTables()
  for (const id of ['overview-error', 'engagement-error', 'assessments-error', 'functional-error', 'range-error',
    'updated', 'client-title', 'denied-text']) $(id).textContent = ''
  for (const id of RANGE_BLOCKS) $(id).hidden = false
  $('client').replaceChildren()
  state.clients = []
  state.clientId = null
}

function showSignIn (text = '') {
  resetDashboard()
  $('who').textContent = ''
  show('signin')
  say(text)
  $('signin-submit').disabled = false
  $('signin-submit').textContent = 'Sign in'
}

async function signedIn (user) {
  const session = ++state.session
  state.user = user
  say('Loading your clients…')
  $('main').setAttribute('aria-busy', 'true')
  let claims, listed
  try {
    claims = (await getIdTokenResult(user)).claims
    listed = await api('/api/analytics/clients')
  } catch (e) {
    if (session !== state.session) return
    $('who').textContent = user.email || ''
    denied(e instanceof ApiError ? e.message : 'Your sign-in could not be checked. Sign out and sign in again.')
    return
  }
  if (session !== state.session) return
  state.claims = claims
  // The operator tenant (every client's figures) first, then the clients by name.
  state.clients = [...listed.clients].sort((a, b) => (b.isOperator - a.isOperator) || a.name.localeCompare(b.name))
  const platformAdmin = claims.platformAdmin === true
  const own = state.clients.find((c) => c.clientId === claims.clientId)
  // The client and range of the address (a reload or a shared link), else the caller's own client and the last
  // 30 days.
  const asked = new URLSearchParams(location.search)
  const askedClient = state.clients.find((c) => c.clientId === asked.get('client'))
  state.clientId = (askedClient || own || state.clients[0] || {}).clientId || claims.clientId
  $('who').textContent = `${user.email} · ${platformAdmin ? 'platform administrator'
    : `administrator of ${own ? own.name : claims.clientId}`}`
  // The picker: platform administrators only.
  $('client').replaceChildren(...state.clients.map((c) =>
    el('option', { value: c.clientId, selected: c.clientId === state.clientId, text: clientLabel(c) })))
  $('client').value = state.clientId
  $('client-field').hidden = !platformAdmin
  renderHeading()
  if (DAY.test(asked.get('start') || '') && DAY.test(asked.get('end') || '')) {
    $('start').value = asked.get('start')
    $('end').value = asked.get('end')
    boundPickers()
  } else {
    setRange(DEFAULT_DAYS)
  }
  say('')
  show('dashboard')
  makeCharts()
  $('client-title').focus()
  await load()
}

// -------------------------------------------------------------------------------------------------- start

function wire () {
  $('signin-form').addEventListener('submit', async (event) => {
    event.preventDefault()
    const email = $('email').value.trim()
    const password = $('password').value
    const error = $('signin-error')
    error.textContent = ''
    if (!email) { error.textContent = 'Enter your email address.'; $('email').focus(); return }
    if (!password) { error.textContent = 'Enter your password.'; $('password').focus(); return }
    $('signin-submit').disabled = true
    $('signin-submit').textContent = 'Signing in…'
    try {
      await signInWithEmailAndPassword(state.auth, email, password)
      $('password').value = ''
    } catch (e) {
      error.textContent = SIGN_IN_ERRORS[e && e.code] || 'The sign-in failed. Try again.'
      $('signin-submit').disabled = false
      $('signin-submit').textContent = 'Sign in'
      $('password').focus()
    }
  })
  $('sign-out').addEventListener('click', async () => {
    $('sign-out').disabled = true
    try { await signOut(state.auth) } finally { $('sign-out').disabled = false }
  })
  $('start').addEventListener('change', boundPickers)
  $('end').addEventListener('change', boundPickers)
  $('filters').addEventListener('submit', (event) => { event.preventDefault(); load({ overview: false }) })
  for (const button of document.querySelectorAll('[data-days]')) {
    button.addEventListener('click', () => { setRange(Number(button.dataset.days)); load({ overview: false }) })
  }
  $('client').addEventListener('change', () => {
    state.clientId = $('client').value
    renderHeading()
    load()
  })
}

async function start () {
  wire()
  let config
  try {
    const response = await fetch('/api/analytics/config', { cache: 'no-store' })
    if (!response.ok) throw new Error(`status ${response.status}`)
    config = await response.json()
  } catch {
    document.body.dataset.view = 'error'
    $('main').setAttribute('aria-busy', 'false')
    say('The dashboard could not load its settings. Reload the page to try again.')
    return
  }
  const app = initializeApp(config.firebase)
  // initializeAuth without a popup/redirect resolver: email and password need no iframe or Google script.
  state.auth = initializeAuth(app, { persistence: browserSessionPersistence })
  if (config.authEmulatorUrl) connectAuthEmulator(state.auth, config.authEmulatorUrl, { disableWarnings: true })
  onAuthStateChanged(state.auth, (user) => {
    if (user) {
      signedIn(user)
    } else {
      const wasSignedIn = state.user !== null
      state.session++
      state.user = null
      showSignIn(wasSignedIn ? 'You are signed out.' : '')
      if (wasSignedIn) {
        history.replaceState(null, '', location.pathname) // the next administrator starts from the defaults
        $('signin-title').focus()
      }
    }
  })
}

start()
