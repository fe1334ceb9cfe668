// Bundles the /docs page (web/docs.js + Scalar) into public/docs/ with esbuild. Run by
// devstack/install.sh (`node web/build.mjs`); prints the size of what it wrote.
//
//   public/docs/index.html        committed, loads the two fixed names below
//   public/docs/docs.js, docs.css the entry (fixed names: revalidated on every load)
//   public/docs/chunks/*-HASH.js  lazily loaded parts (content-hashed: cached for a year)
import { build } from 'esbuild'
import { readdirSync, rmSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const outdir = join(here, '..', 'public', 'docs')

// Remove earlier output (keep the committed index.html and favicon).
const KEEP = new Set(['index.html', 'favicon.svg'])
for (const name of readdirSync(outdir)) {
  if (!KEEP.has(name)) rmSync(join(outdir, name), { recursive: true, force: true })
}

const started = Date.now()
const result = await build({
  absWorkingDir: here,
  entryPoints: { docs: 'docs.js' },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
  minify: true,
  legalComments: 'linked',
  entryNames: '[name]',
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
  logLevel: 'warning',
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
