// Bundles the /docs page (web/docs.js + Scalar) into public/docs/, the hosted Vital Scan page's script
// (web/vital-scan.js + @vladmandic/face-api) into public/vital-scan/ and the analytics dashboard (web/analytics.js
// + the Firebase JS SDK's Auth + Chart.js) into public/admin/analytics/ with esbuild. Run by
// devstack/install.sh (`node web/build.mjs`); prints the size of what it wrote.
//
//   public/docs/index.html        committed, loads the two fixed names below
//   public/docs/docs.js, docs.css the entry (fixed names: revalidated on every load)
//   public/docs/chunks/*-HASH.js  lazily loaded parts (content-hashed: cached for a year)
//   public/vital-scan/index.html  committed, loads scan.js
//   public/vital-scan/scan.js     the page's script with the face detector (tfjs bundled in)
//   public/vital-scan/models/     the detector's weights, copied from the npm package (self-hosted, no CDN):
//                                 TinyFaceDetector and the tiny 68-point landmarks
//   public/admin/analytics/index.html  committed, loads the two below
//   public/admin/analytics/analytics.js, analytics.css  the dashboard's script and styles (web/analytics.css,
//                                 imported by web/analytics.js), with their licence texts (*.LEGAL.txt)
import { build } from 'esbuild'
import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const outdir = join(here, '..', 'public', 'docs')

// Remove earlier output (keep the committed index.html and favicon).
const KEEP = new Set(['index.html', 'favicon.svg'])
for (const name of readdirSync(outdir)) {
  if (!KEEP.has(name)) rmSync(join(outdir, name), { recursive: true, force: true })
}

// What both pages are built with: minified browser ESM, entry files under their own names.
const common = {
  absWorkingDir: here,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
  minify: true,
  legalComments: 'linked',
  entryNames: '[name]',
  logLevel: 'warning',
}

const started = Date.now()
const result = await build({
  ...common,
  entryPoints: { docs: 'docs.js' },
  outdir,
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  assetNames: 'assets/[name]-[hash]',
  loader: { '.woff2': 'file', '.woff': 'file', '.svg': 'file', '.png': 'file' },
  define: {
    'process.env.NODE_ENV': '"production"',
    __VUE_OPTIONS_API__: 'true',
    __VUE_PROD_DEVTOOLS__: 'false',
    __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
  },
  metafile: true,
})

let total = 0
const files = []
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    const st = statSync(p)
    if (st.isDirectory()) walk(p)
    else if (!KEEP.has(name)) { total += st.size; files.push([relative(outdir, p), st.size]) }
  }
}
walk(outdir)
const entry = files.filter(([n]) => n === 'docs.js' || n === 'docs.css').map(([n, s]) => `${n} ${(s / 1024).toFixed(0)} KiB`)
console.log(`[web] bundled public/docs/ in ${((Date.now() - started) / 1000).toFixed(1)} s: ` +
  `${entry.join(', ')}; ${files.length} files, ${(total / 1024 / 1024).toFixed(2)} MiB in all` +
  (result.warnings.length ? `; ${result.warnings.length} warning(s)` : ''))

// ------------------------------------------------------------------------------- the hosted Vital Scan page
const scanDir = join(here, '..', 'public', 'vital-scan')
for (const name of readdirSync(scanDir)) {
  if (name !== 'index.html') rmSync(join(scanDir, name), { recursive: true, force: true })
}
const scanStarted = Date.now()
const scanResult = await build({
  ...common,
  entryPoints: { scan: 'vital-scan.js' },
  outdir: scanDir,
  define: { 'process.env.NODE_ENV': '"production"' },
})
const modelSrc = join(here, 'node_modules', '@vladmandic', 'face-api', 'model')
const modelDir = join(scanDir, 'models')
mkdirSync(modelDir, { recursive: true })
let modelBytes = 0
for (const model of ['tiny_face_detector_model', 'face_landmark_68_tiny_model']) {
  for (const file of [`${model}-weights_manifest.json`, `${model}.bin`]) {
    copyFileSync(join(modelSrc, file), join(modelDir, file))
    modelBytes += statSync(join(modelDir, file)).size
  }
}
console.log(`[web] bundled public/vital-scan/ in ${((Date.now() - scanStarted) / 1000).toFixed(1)} s: ` +
  `scan.js ${(statSync(join(scanDir, 'scan.js')).size / 1024).toFixed(0)} KiB, models ${(modelBytes / 1024).toFixed(0)} KiB` +
  (scanResult.warnings.length ? `; ${scanResult.warnings.length} warning(s)` : ''))

// ------------------------------------------------------------------------------ the analytics dashboard page
const adminDir = join(here, '..', 'public', 'admin', 'analytics')
mkdirSync(adminDir, { recursive: true })
for (const name of readdirSync(adminDir)) {
  if (name !== 'index.html') rmSync(join(adminDir, name), { recursive: true, force: true })
}
const adminStarted = Date.now()
const adminResult = await build({
  ...common,
  entryPoints: { analytics: 'analytics.js' },
  outdir: adminDir,
  define: { 'process.env.NODE_ENV': '"production"' },
})
const adminFiles = readdirSync(adminDir).filter((n) => n !== 'index.html').sort()
console.log(`[web] bundled public/admin/analytics/ in ${((Date.now() - adminStarted) / 1000).toFixed(1)} s: ` +
  adminFiles.map((n) => `${n} ${(statSync(join(adminDir, n)).size / 1024).toFixed(0)} KiB`).join(', ') +
  (adminResult.warnings.length ? `; ${adminResult.warnings.length} warning(s)` : ''))
