// Checks firestore.rules and storage.rules with the official rules testing library (@firebase/rules-unit-testing)
// against the running Firestore and Storage emulators, and prints one JSON report as its last stdout line. Used by
// tests/test_security_rules.py:
//
//   echo '{"firestore": ["clients/{id}/users/{id}", ...], "storage": ["clients/{clientId}/media-library/{id}.png"]}' \
//     | node web/rules-check.mjs
//
// Every template becomes one concrete path of tenant "tenant-a" whose last id is the owner's uid ("owner-uid"), seeded
// with rules disabled (data carrying clientId, userId and uid of the owner, as the platform's documents do). Then each
// context below tries get, list, create, update and delete on it (Storage: get = metadata, read = download URL, list,
// create, update = metadata, delete), and each cell reports "denied" (assertFails passed), "allowed" or "error".
//
// The checks run in their own project, demo-wellness-rules: loading its Firestore rules and clearing its documents
// cannot touch the platform's project (demo-wellness), and its Storage bucket (gs://demo-wellness-rules) is not the
// platform's. The Storage emulator holds one ruleset for all buckets; only storage.rules itself (or, for a moment, a
// deny-all probe) is ever loaded into it.
//
// Storage probe: offline, the Storage emulator may run a stand-in rules runtime that permits everything
// (devstack/StorageRulesStandIn.java, DEVSTACK_STORAGE_RULES=standin). So before the Storage cells, a deny-all
// ruleset (independent of storage.rules) is loaded and an anonymous read tried: if it succeeds, rules are not
// evaluated, report.storage.rulesEvaluated is false, and a warning goes to stderr. The cells still run and are
// reported, so a reader sees what a stand-in permits, but they say nothing about storage.rules.
//
// Report: {projectId, contexts, firestore: {control, cells}, storage: {rulesEvaluated, standinEnv, probe, cells}, timings,
// error?}; a cell is {template, path, context, op, outcome, detail?}.
import { assertFails, initializeTestEnvironment } from '@firebase/rules-unit-testing'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')
const PROJECT_ID = 'demo-wellness-rules'
const TENANT = 'tenant-a'
const OWNER = 'owner-uid'
const PROBE_OBJECT = 'rules-probe/object.txt'
const DENY_ALL = `rules_version = '2';
service firebase.storage { match /b/{bucket}/o { match /{allPaths=**} { allow read, write: if false; } } }`

// Who might try: nobody, other tenants, the tenant's other members, the data's owner, its admins and the operator.
const CONTEXTS = {
  anonymous: null,
  otherTenantPlayer: { uid: 'other-player', claims: { clientId: 'tenant-b', role: 'player', platformAdmin: false } },
  otherTenantAdmin: { uid: 'other-admin', claims: { clientId: 'tenant-b', role: 'admin', platformAdmin: false } },
  guest: { uid: 'guest-uid', claims: { clientId: TENANT, role: 'guest', platformAdmin: false } },
  samePlayer: { uid: 'peer-player', claims: { clientId: TENANT, role: 'player', platformAdmin: false } },
  owner: { uid: OWNER, claims: { clientId: TENANT, role: 'player', platformAdmin: false } },
  tenantAdmin: { uid: 'tenant-admin', claims: { clientId: TENANT, role: 'admin', platformAdmin: false } },
  platformAdmin: { uid: 'platform-admin', claims: { clientId: 'operator', role: 'admin', platformAdmin: true } },
}

function hostPort (name) {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set: run inside the emulators (make test)`)
  const url = new URL(`http://${value}`)
  return { host: url.hostname, port: Number(url.port) }
}

// clients/{id}/x/{id}/y/{id} -> clients/tenant-a/x/doc-1/y/owner-uid: the tenant first, the owner last.
function concrete (template) {
  const parts = template.split('/')
  const last = parts.lastIndexOf('{id}')
  return parts.map((part, i) => {
    if (part === '{clientId}' || (part === '{id}' && i === 1 && parts[0] === 'clients')) return TENANT
    if (part.includes('{id}')) return part.replace('{id}', i === last ? OWNER : `doc-${i}`)
    return part
  }).join('/')
}

function ownerData (extra = {}) {
  return { clientId: TENANT, userId: OWNER, uid: OWNER, ...extra }
}

async function outcome (promise) {
  try {
    await assertFails(promise)
    return { outcome: 'denied' }
  } catch (err) {
    const message = String(err?.message || err)
    if (message.includes('Expected request to fail')) return { outcome: 'allowed' }
    return { outcome: 'error', detail: message.slice(0, 300) }
  }
}

function contextOf (env, name) {
  const who = CONTEXTS[name]
  return who ? env.authenticatedContext(who.uid, who.claims) : env.unauthenticatedContext()
}

async function firestoreCells (env, templates) {
  await env.clearFirestore()
  await env.withSecurityRulesDisabled(async (ctx) => {
    const db = ctx.firestore()
    await Promise.all(templates.map((t) => db.doc(concrete(t)).set(ownerData({ seeded: true }))))
  })
  // Writes go through transactions (one Commit call each; the rules see the same create, update or delete), not the
  // SDK's write stream: a denied write ends that stream and the SDK reopens it with backoff, about half a second per
  // denied write, which for the whole matrix would take over a minute.
  const runs = Object.keys(CONTEXTS).map(async (name) => {
    const ctx = contextOf(env, name)
    const db = ctx.firestore()
    const uid = CONTEXTS[name]?.uid || 'anonymous'
    const cells = []
    await Promise.all(templates.map(async (template) => {
      const path = concrete(template)
      const ref = db.doc(path)
      const ops = {
        get: () => ref.get(),
        list: () => ref.parent.get(),
        create: () => db.runTransaction(async (tx) => { tx.set(ref.parent.doc(`${uid}-new`), ownerData({ userId: uid, uid })) }),
        update: () => db.runTransaction(async (tx) => { tx.update(ref, { touched: true }) }),
        delete: () => db.runTransaction(async (tx) => { tx.delete(ref) }),
      }
      await Promise.all(Object.entries(ops).map(async ([op, run]) => {
        cells.push({ template, path, context: name, op, ...(await outcome(run())) })
      }))
    }))
    return cells
  })
  const cells = (await Promise.all(runs)).flat()
  await env.clearFirestore()
  return cells
}

// The control: in a project of its own, rules that let tenant-a's members read show that the claims reach the rules
// and that this harness tells "allowed" from "denied" (a harness that failed every request would prove nothing).
const CONTROL_RULES = `rules_version = '2';
service cloud.firestore { match /databases/{database}/documents { match /{document=**} {
  allow read: if request.auth != null && request.auth.token.clientId == '${TENANT}';
} } }`

async function firestoreControl (firestore) {
  const env = await initializeTestEnvironment({ projectId: `${PROJECT_ID}-control`, firestore: { ...firestore, rules: CONTROL_RULES } })
  try {
    await env.withSecurityRulesDisabled((ctx) => ctx.firestore().doc(`clients/${TENANT}`).set(ownerData()))
    const read = (name) => outcome(contextOf(env, name).firestore().doc(`clients/${TENANT}`).get())
    const [samePlayer, otherTenantPlayer] = await Promise.all([read('samePlayer'), read('otherTenantPlayer')])
    return { samePlayer: samePlayer.outcome, otherTenantPlayer: otherTenantPlayer.outcome }
  } finally {
    await env.clearFirestore()
    await env.cleanup()
  }
}

async function setStorageRules (storage, content) {
  const response = await fetch(`http://${storage.host}:${storage.port}/internal/setRules`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ rules: { files: [{ name: 'storage.rules', content }] } }),
  })
  if (!response.ok) throw new Error(`loading Storage rules: ${response.status} ${await response.text()}`)
}

async function seedObjects (env, paths) {
  await env.withSecurityRulesDisabled(async (ctx) => {
    const bucket = ctx.storage()
    await Promise.all(paths.map((p) => bucket.ref(p).putString('seeded', 'raw', { contentType: 'text/plain' })))
  })
}

async function storageCells (env, templates, storageHost, storageRules) {
  const paths = templates.map(concrete)
  await seedObjects(env, [PROBE_OBJECT, ...paths])
  // The probe: a read that any real rules runtime refuses under a deny-all ruleset, whatever storage.rules says.
  await setStorageRules(storageHost, DENY_ALL)
  let probe
  try {
    probe = await outcome(contextOf(env, 'anonymous').storage().ref(PROBE_OBJECT).getMetadata())
  } finally {
    await setStorageRules(storageHost, storageRules)
  }
  if (probe.outcome === 'error') throw new Error(`the Storage probe neither passed nor was denied: ${probe.detail}`)
  const rulesEvaluated = probe.outcome === 'denied'
  const cells = []
  // Context by context, each on freshly seeded objects, deletes last: under a runtime that permits everything an
  // earlier delete would otherwise turn later cells into "object not found".
  for (const name of Object.keys(CONTEXTS)) {
    if (!rulesEvaluated) await seedObjects(env, paths)
    const bucket = contextOf(env, name).storage()
    const uid = CONTEXTS[name]?.uid || 'anonymous'
    await Promise.all(templates.map(async (template, i) => {
      const path = paths[i]
      const ref = bucket.ref(path)
      const ops = {
        get: () => ref.getMetadata(),
        read: () => ref.getDownloadURL(),
        list: () => ref.parent.list({ maxResults: 10 }),
        create: () => ref.parent.child(`${uid}-new.txt`).putString('x', 'raw', { contentType: 'text/plain' }),
        update: () => ref.updateMetadata({ customMetadata: { touched: 'yes' } }),
      }
      await Promise.all(Object.entries(ops).map(async ([op, run]) => {
        cells.push({ template, path, context: name, op, ...(await outcome(run())) })
      }))
      cells.push({ template, path, context: name, op: 'delete', ...(await outcome(ref.delete())) })
    }))
  }
  await env.withSecurityRulesDisabled(async (ctx) => {
    const all = []
    for (const pending = [ctx.storage().ref()]; pending.length;) {
      const listed = await pending.pop().listAll()
      all.push(...listed.items)
      pending.push(...listed.prefixes)
    }
    await Promise.all(all.map((item) => item.delete()))
  })
  return { rulesEvaluated, probe, cells }
}

const report = { projectId: PROJECT_ID, contexts: CONTEXTS, timings: {} }
const started = Date.now()
let env
try {
  const input = JSON.parse(readFileSync(0, 'utf8'))
  const firestoreRules = readFileSync(join(ROOT, 'firestore.rules'), 'utf8')
  const storageRules = readFileSync(join(ROOT, 'storage.rules'), 'utf8')
  const firestore = hostPort('FIRESTORE_EMULATOR_HOST')
  const storage = hostPort('FIREBASE_STORAGE_EMULATOR_HOST')
  env = await initializeTestEnvironment({
    projectId: PROJECT_ID,
    firestore: { ...firestore, rules: firestoreRules },
    storage: { ...storage, rules: storageRules },
  })
  report.timings.setup = Date.now() - started
  const standinEnv = process.env.DEVSTACK_STORAGE_RULES === 'standin'
  // The two emulators share nothing, so both halves run at once.
  await Promise.all([
    (async () => {
      report.firestore = { control: await firestoreControl(firestore), cells: await firestoreCells(env, input.firestore || []) }
      report.timings.firestore = Date.now() - started
    })(),
    (async () => {
      report.storage = { standinEnv, ...(await storageCells(env, input.storage || [], storage, storageRules)) }
      report.timings.storage = Date.now() - started
    })(),
  ])
  if (!report.storage.rulesEvaluated) {
    console.error('rules-check: storage.rules NOT evaluated: a deny-all probe ruleset let an anonymous read through, so ' +
      'the Storage emulator runs a rules runtime that permits everything' +
      (standinEnv ? ' (the offline stand-in, DEVSTACK_STORAGE_RULES=standin)' : '') + '.')
  }
} catch (err) {
  report.error = String(err?.stack || err)
} finally {
  await env?.cleanup()
}
// The SDKs keep sockets open for a while after cleanup, so exit once the report is written (a pipe takes it
// asynchronously: exiting before the callback would cut it at 64 KiB).
process.stdout.write(JSON.stringify(report) + '\n', () => process.exit(0))
