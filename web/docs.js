// The API reference page at {base_url}/docs: Scalar's reference, mounted on the OpenAPI document that
// the API itself serves at /api/openapi.json (same origin). Bundled by web/build.mjs into public/docs/.
//
// Everything runs from this origin: no fonts from Scalar's CDN, no "Ask AI" agent, MCP button,
// developer toolbar or request proxy (each of those calls *.scalar.com), no telemetry.
import './csp.js'
import '@scalar/api-reference/style.css'

// Loaded only after csp.js has run: Scalar's modules validate their configuration as they load.
const { createApiReference } = await import('@scalar/api-reference')

// Code examples: the document's own x-codeSamples (curl against $BASE_URL, see bin/demo-env) come first
// and are selected by default (Scalar picks them when no defaultHttpClient is configured); Scalar's
// generated snippets are limited to shell/curl, the fallback for an operation without x-codeSamples.
const HIDDEN_CLIENTS = {
  c: true, clojure: true, csharp: true, dart: true, fsharp: true, go: true, http: true, java: true,
  js: true, julia: true, kotlin: true, node: true, objc: true, ocaml: true, php: true,
  powershell: true, python: true, r: true, ruby: true, rust: true, swift: true,
  shell: ['httpie', 'wget'],
}

createApiReference('#app', {
  url: '/api/openapi.json',
  title: 'Wellness Platform API',
  // Fonts: the system stacks of the theme, never https://fonts.scalar.com.
  withDefaultFonts: false,
  // Servers: the document's own `servers` (no servers/baseServerURL override here). "Test request"
  // sends straight to them, never through a proxy: no proxyUrl, and the page's CSP (firebase.json)
  // lets it connect to this origin only.
  hiddenClients: HIDDEN_CLIENTS,
  // Hosted services of Scalar that would leave this machine: the "Open API Client" link
  // (client.scalar.com), the "Ask AI" agent and the MCP button (api/dashboard.scalar.com), the
  // developer toolbar (registry uploads). "Test request" stays: it opens the client inside this page.
  hideClientButton: true,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: 'never',
  telemetry: false,
  persistAuth: false,
  documentDownloadType: 'json',
  showOperationId: true,
  defaultOpenAllTags: true,
  theme: 'default',
  favicon: '/docs/favicon.svg',
})
