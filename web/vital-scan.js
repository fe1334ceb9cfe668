// The hosted Vital Scan page (public/vital-scan/index.html; CONTRACT 4, spec 4.8). Bundled by web/build.mjs
// into public/vital-scan/scan.js with the face detector (@vladmandic/face-api: TinyFaceDetector and the
// tiny 68-point landmarks, weights self-hosted under /vital-scan/models/).
//
// What leaves the device: only the mean skin colour of the forehead and cheeks per frame, with its time
// ({fps, t, rgb} to POST measurement). No image or video is stored or sent.
import * as faceapi from '@vladmandic/face-api'

const API = '/api/hosted/vital-scan'
const MODELS = '/vital-scan/models'
// The capture (the server needs at least 15 s) and each length it may go on to. When the server answers a 30 s
// trace "try again" because the pulse was too weak or too much of it moved, the camera is still recording: the
// same capture goes on to the next length and the whole trace is sent again, and so on while the answer is the
// same and the session has a try left, up to LONGEST_CAPTURE_MS (a weak pulse stands out of the camera's noise the
// longer it is watched; a dark room or a short trace needs a change, not more of the same). A session's last try
// records LONG_CAPTURE_MS at once.
// The 30 s trace says the camera is still recording (recording: true). When it gives a heart rate but no
// breathing rate, the server answers scanOn "rr" (vital_scan.scan_on): the same capture goes on to
// LONG_CAPTURE_MS, and the whole trace completes the session with both parts' metrics. A problem while scanning
// on (movement, the face lost) sends what was recorded at once: the heart rate is already there. The minute is
// sent as still recording too: where it reads no heart rate the server does not keep the first 30 s's (a rate the
// longer look cannot read is not reported) and answers "try again", and the capture goes on as for a weak pulse.
const CAPTURES_MS = [30000, 60000, 120000, 175000] // the engine reads up to 180 s (vital_scan.rppg.limits.MAX_SECONDS)
const [CAPTURE_MS, LONG_CAPTURE_MS, LONGER_CAPTURE_MS] = CAPTURES_MS
const LONGEST_CAPTURE_MS = CAPTURES_MS[CAPTURES_MS.length - 1]
const nextCapture = (ms) => CAPTURES_MS.find((c) => c > ms) || LONGEST_CAPTURE_MS
const EXTEND_FOR = { weak: 'extendWeak', motion: 'extendMotion' }
const SCAN_ON_FOR = { rr: 'scanOnRr' }
const LONG_TRACE_MS = 50000 // a trace this long had its minute: no breathing rate then is not for want of time
// Face detection runs every 400 ms while looking for the face, every 700-1300 ms at random while recording (it
// blocks the main thread for a while on slow devices, and every frame missed then is a gap in the trace); colours
// are sampled on every video frame in between.
const DETECT_EVERY_MS = 400
const DETECT_EVERY_RECORDING_MS = 1000
const MIN_FACE_WIDTH = 0.2 // of the frame width (a face that fills the oval is about 0.3)
const MIN_LUMA = 55 // mean luma (0-255) of the skin regions
const MAX_SHIFT = 0.12 // of the face width, between two detections
const REGION_HOLD = 0.04 // of the face width: regions that moved less than this on every edge are kept (sameRegions)
const NO_FACE_GRACE = 2 // detections without a face before the capture stops
const MOVEMENT_HOLD_MS = 2000 // "too much movement" stays this long after the last jump
const MAX_LUMA_STEP = 4 // a jump of the skin regions' mean luma between two frames: the head moved (the pulse is ~1)

const TEXT = {
  en: {
    title: 'Vital Scan',
    loading: 'Loading…',
    intro: 'This scan uses your camera for 30 seconds to 3 minutes to estimate your heart rate, breathing rate and other vital signs. Sit still in good light with your face inside the oval.',
    privacy: 'No video or picture leaves your device: only the average skin colour of your face, frame by frame.',
    start: 'Start scan', retry: 'Try again', finish: 'Finish now', continue: 'Continue', exit: 'Exit',
    progress: 'Progress',
    cameraStarting: 'Starting the camera…',
    modelLoading: 'Loading the face detector…',
    noFace: 'No face found. Look at the camera with your face inside the oval.',
    tooSmall: 'Your face is too small. Move closer to the camera.',
    tooDark: 'It is too dark. Move to a brighter place or face a light.',
    movement: 'Too much movement. Hold still.',
    holdStill: 'Hold still…',
    measuring: 'Measuring. Hold still and keep your face in the oval.',
    measuringLong: 'Measuring for about a minute. Hold still and keep your face in the oval.',
    measuringLonger: 'Measuring for about 2 minutes. Hold still and keep your face in the oval.',
    measuringLongest: 'Measuring for about 3 minutes. Hold still and keep your face in the oval.',
    extendWeak: (s) => `The pulse signal is weak: the scan goes on for ${s} more seconds. Hold still.`,
    extendMotion: (s) => `There was some movement: the scan goes on for ${s} more seconds. Hold still.`,
    scanOnRr: 'Heart rate measured. The scan goes on for 30 more seconds to measure your breathing rate. Hold still.',
    left: (s) => `${s} s left`,
    restart: 'The scan stopped. It starts again when your face is in the oval.',
    sending: 'Calculating your results…',
    sendFailed: 'Your scan could not be sent. Try again to send it, or exit.',
    cameraDenied: 'Camera access was denied. To scan, allow the camera for this page in your browser settings and try again, or exit.',
    cameraMissing: 'No camera was found on this device. You can exit and try again on a device with a camera.',
    cameraError: 'The camera could not be started. Close other apps that use it and try again, or exit.',
    resultsTitle: 'Your results',
    noResults: 'The scan is complete, but no measurement could be made this time.',
    resultsNote: 'These results are estimates for wellness purposes only, not a medical diagnosis.',
    completed: 'The scan is complete. You can close this window.',
    ended: 'This scan has ended. You can close this window.',
    invalid: 'This scan link is not valid or has expired. Scan links work for one scan and for a limited time. Go back to the app or website that sent you here and ask it for a new scan link.',
    retryDark: 'No measurement this time: it was too dark. Move to a brighter place or face a light, then tap Try again.',
    retryMotion: 'No measurement this time: there was too much movement. Rest your arms, keep your head still and tap Try again.',
    retryWeak: 'No measurement this time: the pulse signal was too weak. Move closer so your face fills the oval, face an even light, and tap Try again.',
    retryShort: 'No measurement this time: the scan was too short. Keep your face in the oval until the scan ends, then tap Try again.',
    lastTry: 'The last try takes about a minute.',
    longerScan: 'Breathing rate and heart rate variability need a calm scan of about 60 seconds.',
    longerScanRr: 'Breathing rate needs a calm scan of about 60 seconds.',
    longerScanHrv: 'Heart rate variability needs a calm scan of about 60 seconds.',
    stillerScan: 'Breathing rate and heart rate variability could not be measured this time: they need a very still scan in even light.',
    stillerScanRr: 'Breathing rate could not be measured this time: it needs a very still scan in even light.',
    stillerScanHrv: 'Heart rate variability could not be measured this time: it needs a very still scan in even light.',
    framed: 'This page cannot be shown inside another page. Open the scan link directly.',
    error: 'Something went wrong. Please try again.',
    exited: 'You left the scan. You can close this window.',
    metrics: { hr: ['Heart rate', 'bpm'], hrv: ['Heart rate variability', 'ms'], rr: ['Breathing rate', 'breaths/min'],
      spo2: ['Blood oxygen', '%'], sbp: ['Systolic blood pressure', 'mmHg'], dbp: ['Diastolic blood pressure', 'mmHg'],
      si: ['Stress index', ''] },
  },
  'zh-Hant': {
    title: '生命體徵掃描',
    loading: '載入中…',
    intro: '此掃描會使用您的相機 30 秒至 3 分鐘，以估算您的心率、呼吸頻率及其他生命體徵。請在光線充足處坐定，並讓臉部位於橢圓框內。',
    privacy: '影片或相片不會離開您的裝置，只會傳送每一格畫面中臉部皮膚的平均顏色。',
    start: '開始掃描', retry: '再試一次', finish: '立即完成', continue: '繼續', exit: '離開',
    progress: '進度',
    cameraStarting: '正在啟動相機…',
    modelLoading: '正在載入臉部偵測…',
    noFace: '找不到臉部。請看著相機，並讓臉部位於橢圓框內。',
    tooSmall: '臉部太小，請靠近相機。',
    tooDark: '光線太暗，請移到較明亮的地方或面向光源。',
    movement: '移動太多，請保持不動。',
    holdStill: '請保持不動…',
    measuring: '測量中，請保持不動，並讓臉部留在橢圓框內。',
    measuringLong: '測量約需 1 分鐘，請保持不動，並讓臉部留在橢圓框內。',
    measuringLonger: '測量約需 2 分鐘，請保持不動，並讓臉部留在橢圓框內。',
    measuringLongest: '測量約需 3 分鐘，請保持不動，並讓臉部留在橢圓框內。',
    extendWeak: (s) => `脈搏訊號微弱：掃描將再延長 ${s} 秒，請保持不動。`,
    extendMotion: (s) => `剛才有些晃動：掃描將再延長 ${s} 秒，請保持不動。`,
    scanOnRr: '已測得心率。掃描將再延長 30 秒以測量呼吸頻率，請保持不動。',
    left: (s) => `剩餘 ${s} 秒`,
    restart: '掃描已停止。臉部回到橢圓框內後會重新開始。',
    sending: '正在計算結果…',
    sendFailed: '無法傳送您的掃描。請再試一次以重新傳送，或選擇離開。',
    cameraDenied: '相機存取遭拒。若要掃描，請在瀏覽器設定中允許此頁面使用相機後再試一次，或選擇離開。',
    cameraMissing: '此裝置上找不到相機。您可以離開，並在有相機的裝置上再試一次。',
    cameraError: '無法啟動相機。請關閉其他正在使用相機的應用程式後再試一次，或選擇離開。',
    resultsTitle: '您的結果',
    noResults: '掃描已完成，但這次未能取得測量結果。',
    resultsNote: '結果僅為健康參考的估算值，並非醫療診斷。',
    completed: '掃描已完成，您可以關閉此視窗。',
    ended: '此掃描已結束，您可以關閉此視窗。',
    invalid: '此掃描連結無效或已過期。掃描連結只能使用一次，且有使用期限。請回到提供此連結的應用程式或網站，索取新的掃描連結。',
    retryDark: '這次未能測量：光線太暗。請移到較明亮的地方或面向光源，然後點選「再試一次」。',
    retryMotion: '這次未能測量：動作太多。請放鬆手臂、保持頭部不動，然後點選「再試一次」。',
    retryWeak: '這次未能測量：脈搏訊號太弱。請靠近鏡頭讓臉部填滿橢圓框，面向均勻的光線，然後點選「再試一次」。',
    retryShort: '這次未能測量：掃描時間太短。請讓臉部保持在橢圓框內直到掃描結束，然後點選「再試一次」。',
    lastTry: '最後一次嘗試約需 1 分鐘。',
    longerScan: '呼吸頻率與心率變異需要約 60 秒的平靜掃描。',
    longerScanRr: '呼吸頻率需要約 60 秒的平靜掃描。',
    longerScanHrv: '心率變異需要約 60 秒的平靜掃描。',
    stillerScan: '這次未能測得呼吸頻率與心率變異：需要在光線均勻處保持非常靜止的掃描。',
    stillerScanRr: '這次未能測得呼吸頻率：需要在光線均勻處保持非常靜止的掃描。',
    stillerScanHrv: '這次未能測得心率變異：需要在光線均勻處保持非常靜止的掃描。',
    framed: '此頁面無法在其他頁面中顯示，請直接開啟掃描連結。',
    error: '發生錯誤，請再試一次。',
    exited: '您已離開掃描，可以關閉此視窗。',
    metrics: { hr: ['心率', '次/分'], hrv: ['心率變異', '毫秒'], rr: ['呼吸頻率', '次/分'], spo2: ['血氧', '%'],
      sbp: ['收縮壓', 'mmHg'], dbp: ['舒張壓', 'mmHg'], si: ['壓力指數', ''] },
  },
  'zh-Hans': {
    title: '生命体征扫描',
    loading: '加载中…',
    intro: '此扫描会使用您的摄像头 30 秒至 3 分钟，以估算您的心率、呼吸频率及其他生命体征。请在光线充足处坐好，并让脸部位于椭圆框内。',
    privacy: '视频或照片不会离开您的设备，只会发送每一帧画面中脸部皮肤的平均颜色。',
    start: '开始扫描', retry: '再试一次', finish: '立即完成', continue: '继续', exit: '退出',
    progress: '进度',
    cameraStarting: '正在启动摄像头…',
    modelLoading: '正在加载人脸检测…',
    noFace: '未检测到人脸。请看着摄像头，并让脸部位于椭圆框内。',
    tooSmall: '脸部太小，请靠近摄像头。',
    tooDark: '光线太暗，请移到较明亮的地方或面向光源。',
    movement: '移动太多，请保持不动。',
    holdStill: '请保持不动…',
    measuring: '测量中，请保持不动，并让脸部留在椭圆框内。',
    measuringLong: '测量约需 1 分钟，请保持不动，并让脸部留在椭圆框内。',
    measuringLonger: '测量约需 2 分钟，请保持不动，并让脸部留在椭圆框内。',
    measuringLongest: '测量约需 3 分钟，请保持不动，并让脸部留在椭圆框内。',
    extendWeak: (s) => `脉搏信号微弱：扫描将再延长 ${s} 秒，请保持不动。`,
    extendMotion: (s) => `刚才有些晃动：扫描将再延长 ${s} 秒，请保持不动。`,
    scanOnRr: '已测得心率。扫描将再延长 30 秒以测量呼吸频率，请保持不动。',
    left: (s) => `剩余 ${s} 秒`,
    restart: '扫描已停止。脸部回到椭圆框内后会重新开始。',
    sending: '正在计算结果…',
    sendFailed: '无法发送您的扫描。请再试一次以重新发送，或选择退出。',
    cameraDenied: '摄像头访问被拒绝。若要扫描，请在浏览器设置中允许此页面使用摄像头后再试一次，或选择退出。',
    cameraMissing: '此设备上未找到摄像头。您可以退出，并在有摄像头的设备上再试一次。',
    cameraError: '无法启动摄像头。请关闭其他正在使用摄像头的应用后再试一次，或选择退出。',
    resultsTitle: '您的结果',
    noResults: '扫描已完成，但这次未能获得测量结果。',
    resultsNote: '结果仅为健康参考的估算值，并非医疗诊断。',
    completed: '扫描已完成，您可以关闭此窗口。',
    ended: '此扫描已结束，您可以关闭此窗口。',
    invalid: '此扫描链接无效或已过期。扫描链接只能使用一次，且有使用期限。请回到提供此链接的应用或网站，获取新的扫描链接。',
    retryDark: '这次未能测量：光线太暗。请移到较明亮的地方或面向光源，然后点击“再试一次”。',
    retryMotion: '这次未能测量：动作太多。请放松手臂、保持头部不动，然后点击“再试一次”。',
    retryWeak: '这次未能测量：脉搏信号太弱。请靠近镜头让脸部填满椭圆框，面向均匀的光线，然后点击“再试一次”。',
    retryShort: '这次未能测量：扫描时间太短。请让脸部保持在椭圆框内直到扫描结束，然后点击“再试一次”。',
    lastTry: '最后一次尝试约需 1 分钟。',
    longerScan: '呼吸频率与心率变异需要约 60 秒的平静扫描。',
    longerScanRr: '呼吸频率需要约 60 秒的平静扫描。',
    longerScanHrv: '心率变异需要约 60 秒的平静扫描。',
    stillerScan: '这次未能测得呼吸频率与心率变异：需要在光线均匀处保持非常静止的扫描。',
    stillerScanRr: '这次未能测得呼吸频率：需要在光线均匀处保持非常静止的扫描。',
    stillerScanHrv: '这次未能测得心率变异：需要在光线均匀处保持非常静止的扫描。',
    framed: '此页面无法在其他页面中显示，请直接打开扫描链接。',
    error: '发生错误，请再试一次。',
    exited: '您已退出扫描，可以关闭此窗口。',
    metrics: { hr: ['心率', '次/分'], hrv: ['心率变异性', '毫秒'], rr: ['呼吸频率', '次/分'], spo2: ['血氧', '%'],
      sbp: ['收缩压', 'mmHg'], dbp: ['舒张压', 'mmHg'], si: ['压力指数', ''] },
  },
}

// The session's locale (en, zh, zh-Hant, zh-Hans, zh-TW) to a text set: zh-TW is Traditional; a bare zh
// takes its likely script, Simplified (CLDR: zh -> zh-Hans-CN).
export function textLocale(locale) {
  if (locale === 'zh-Hant' || locale === 'zh-TW') return 'zh-Hant'
  if (locale === 'zh-Hans' || locale === 'zh') return 'zh-Hans'
  return 'en'
}

const $ = (id) => document.getElementById(id)
const BUTTONS = ['start', 'retry', 'finish', 'continue', 'exit']
const el = {
  title: $('title'), message: $('message'), intro: $('intro'), introText: $('intro-text'), privacy: $('privacy'),
  camera: $('camera'), video: $('preview'), guide: $('guide'), guidance: $('guidance'), progress: $('progress'),
  progressLabel: $('progress-label'), results: $('results'), resultsTitle: $('results-title'), metrics: $('metrics'),
  resultsNote: $('results-note'), start: $('start'), retry: $('retry'), finish: $('finish'), continue: $('continue'),
  exit: $('exit'),
}
let text = TEXT.en
let token = null
let stream = null
let redirectUrl = null
let busy = false
let loaded = false // the session was read: Try again restarts the scan, not the loading
let unsent = null // a trace whose sending failed in passing: Try again sends it again (no new capture)
let sentMs = 0 // the span of the last trace sent
let lastTry = false // the server's next answer completes the session (retriesLeft 0): record a long trace at once

function say(key, ...args) {
  const value = text[key]
  el.message.textContent = typeof value === 'function' ? value(...args) : value
}
function guide(key, kind, ...args) {
  const value = key ? text[key] : ''
  el.guidance.textContent = typeof value === 'function' ? value(...args) : value
  el.guidance.className = kind || ''
  el.guide.classList.toggle('ok', kind === 'ok')
}
function buttons(...shown) {
  showButtons(shown)
  const first = el[shown[0]]
  if (first && document.activeElement !== first) first.focus()
}
// The same without moving the focus (while scanning: the buttons change under the user).
function showButtons(shown) {
  for (const name of BUTTONS) el[name].hidden = !shown.includes(name)
}

// Resolves {status, body}; status 0: no answer at all (offline, connection reset).
function call(method, path, body) {
  return fetch(API + path, {
    method,
    headers: { Authorization: 'Bearer ' + token, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    cache: 'no-store',
    credentials: 'omit',
    referrerPolicy: 'no-referrer',
  }).then((response) => response.json().catch(() => ({})).then((json) => ({ status: response.status, body: json })),
    () => ({ status: 0, body: {} }))
}

// No answer, a server error or too many requests: the session is still good, so the token is kept and the
// user is offered Try again (a refusal, 401 or 410, ends the page instead).
function transient(status) { return status === 0 || status === 429 || status >= 500 }

function trouble(...shown) {
  say('error')
  buttons(...shown)
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
// Reading the session is safe to repeat: a passing failure (a restarting server, a dropped connection)
// is tried again after 1 s and 3 s before the user is asked.
const SESSION_RETRY_MS = [1000, 3000]
async function readSession() {
  let res = await call('GET', '/session')
  for (const wait of SESSION_RETRY_MS) {
    if (!transient(res.status)) break
    await pause(wait)
    res = await call('GET', '/session')
  }
  return res
}

function stopCamera() {
  if (stream) for (const track of stream.getTracks()) track.stop()
  stream = null
  el.video.srcObject = null
}

function forget() { sessionStorage.removeItem('vitalScanToken') }

// A terminal or refused session: say why, offer nothing.
function refuse(status) {
  stopCamera()
  forget()
  el.intro.hidden = el.camera.hidden = true
  buttons()
  say(status === 410 ? 'ended' : status === 401 ? 'invalid' : 'error')
}

function leaveTo(url, fallbackKey) {
  stopCamera()
  forget()
  if (url) { window.location.replace(url); return }
  el.intro.hidden = el.camera.hidden = true
  buttons()
  say(fallbackKey)
  el.title.focus()
}

async function exitScan() {
  if (busy) return
  busy = true
  el.exit.disabled = true
  try {
    const res = await call('POST', '/exit')
    if (transient(res.status)) { say('error'); return } // the buttons stay: Exit again
    if (res.status !== 200) { refuse(res.status); return }
    leaveTo(res.body.redirectUrl, 'exited')
  } finally {
    busy = false
    el.exit.disabled = false
  }
}

// ------------------------------------------------------------------------------------------- the detector
let detectorReady = null
function loadDetector() {
  if (!detectorReady) {
    detectorReady = (async () => {
      // WebGL where the browser has it, else the CPU backend (no GPU, e.g. a headless test browser).
      let backend = 'cpu'
      try {
        const gl = document.createElement('canvas').getContext('webgl2') || document.createElement('canvas').getContext('webgl')
        if (gl) backend = 'webgl'
      } catch { /* cpu */ }
      if (!(await faceapi.tf.setBackend(backend).catch(() => false))) await faceapi.tf.setBackend('cpu')
      await faceapi.tf.ready()
      await faceapi.nets.tinyFaceDetector.loadFromUri(MODELS)
      await faceapi.nets.faceLandmark68TinyNet.loadFromUri(MODELS)
      window.__vitalScanBackend = faceapi.tf.getBackend()
    })()
    detectorReady.catch(() => { detectorReady = null })
  }
  return detectorReady
}

const detectorOptions = new faceapi.TinyFaceDetectorOptions({ inputSize: 224, scoreThreshold: 0.4 })

// The forehead and both cheeks of a detection, as rectangles in video pixels.
export function skinRegions(points, box) {
  const xs = (idx) => idx.map((i) => points[i].x)
  const ys = (idx) => idx.map((i) => points[i].y)
  const browTop = Math.min(...ys([17, 18, 19, 20, 21, 22, 23, 24, 25, 26]))
  const chin = points[8].y
  const faceH = Math.max(chin - browTop, box.height * 0.6)
  const rects = []
  // Forehead: between the middle of the brows, above them.
  rects.push({ x: points[19].x, y: browTop - 0.22 * faceH, w: points[24].x - points[19].x, h: 0.15 * faceH })
  // Cheeks: under each eye, from its outer corner to its inner corner, down to the nose tip.
  const cheekTop = (eye) => Math.max(...ys(eye)) + 0.06 * faceH
  const noseTip = points[33].y
  for (const [outer, inner, eye] of [[36, 39, [36, 37, 38, 39, 40, 41]], [42, 45, [42, 43, 44, 45, 46, 47]]]) {
    const [x1, x2] = [Math.min(...xs([outer, inner])), Math.max(...xs([outer, inner]))]
    const top = cheekTop(eye)
    rects.push({ x: x1, y: top, w: x2 - x1, h: Math.max(noseTip - top, 0.08 * faceH) })
  }
  return rects.map((r) => ({ x: Math.round(r.x), y: Math.round(r.y), w: Math.round(r.w), h: Math.round(r.h) }))
    .filter((r) => r.w >= 2 && r.h >= 2)
}

// Whether two detections' regions are the same to within `px` on every edge. A still face keeps its regions: the
// landmarks of one detection and the next differ by a pixel or two, which moves the regions' edges over other
// pixels, and each move is a step in the mean colour as large as the pulse itself (measured on the browser test's
// still face: steps of up to 1.8 levels against a pulse of 1.5, one a second, which its 30 s trace once read as a
// breathing rate of 19.5/min). A face that moves more gets new regions.
function sameRegions(a, b, px) {
  return a.length === b.length && a.every((r, i) =>
    Math.abs(r.x - b[i].x) <= px && Math.abs(r.y - b[i].y) <= px && Math.abs(r.w - b[i].w) <= px && Math.abs(r.h - b[i].h) <= px)
}

// Skin in YCbCr (a common explicit rule): keeps skin tones, drops eyebrows, hair, eyes, background.
function isSkin(r, g, b) {
  const y = 0.299 * r + 0.587 * g + 0.114 * b
  const cb = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b
  const cr = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b
  return y > 35 && cb >= 77 && cb <= 127 && cr >= 133 && cr <= 173
}

// ------------------------------------------------------------------------------------------------ the scan
const canvas = document.createElement('canvas')
const ctx = canvas.getContext('2d', { willReadFrequently: true })

function sample(regions) {
  const w = el.video.videoWidth, h = el.video.videoHeight
  if (!w || !h) return null
  if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h }
  ctx.drawImage(el.video, 0, 0, w, h)
  let n = 0, r = 0, g = 0, b = 0, all = 0, luma = 0
  for (const rect of regions) {
    const x = Math.max(0, rect.x), y = Math.max(0, rect.y)
    const rw = Math.min(w, rect.x + rect.w) - x, rh = Math.min(h, rect.y + rect.h) - y
    if (rw < 1 || rh < 1) continue
    const data = ctx.getImageData(x, y, rw, rh).data
    for (let i = 0; i < data.length; i += 4) {
      const pr = data[i], pg = data[i + 1], pb = data[i + 2]
      all++
      luma += 0.299 * pr + 0.587 * pg + 0.114 * pb
      if (isSkin(pr, pg, pb)) { n++; r += pr; g += pg; b += pb }
    }
  }
  if (!all) return null
  return { skin: n / all, luma: luma / all, rgb: n ? [r / n, g / n, b / n] : null }
}

// Records the skin colour of each frame; at `goal` ms it hands its trace to onTrace(trace, more). more: the goal is
// short of `upTo`, the recording goes on meanwhile and the page may extend() the goal; it stops at `upTo`, never
// past LONGEST_CAPTURE_MS. extend(true): scanning on for a metric the first part lacks; a problem then hands what
// was recorded at once. extend(false, true): the next length may go on to the one after it in its turn.
class Scan {
  constructor(onTrace, goal) {
    this.onTrace = onTrace
    this.goal = goal
    this.upTo = Math.max(goal, LONG_CAPTURE_MS)
    this.regions = null
    this.lastBox = null
    this.misses = 0
    this.problem = 'noFace'
    this.reset()
    this.running = true
    this.detecting = false
    this.nextDetect = 0
    this.lastFrame = -1
    this.tick = this.tick.bind(this)
    this.schedule()
  }

  reset() { this.t = []; this.rgb = []; this.startedAt = null; this.handed = false; this.scanningOn = false; this.goodFrames = this.firstFrames = 0 }

  extend(scanningOn = false, further = false) {
    this.goal = nextCapture(this.goal)
    this.upTo = further ? nextCapture(this.goal) : this.goal
    this.handed = false
    this.scanningOn = scanningOn
  }

  finish(frames = this.t.length) {
    this.stop()
    this.handed = true
    this.t.length = this.rgb.length = Math.min(frames, this.t.length)
    this.onTrace(this.trace(), false)
  }

  trace() {
    const t0 = this.t[0]
    const t = this.t.map((v) => Math.round((v - t0) * 10) / 10)
    const fps = Math.round(((t.length - 1) / (t[t.length - 1] / 1000)) * 100) / 100
    return { fps, t, rgb: this.rgb.map((c) => c.map((v) => Math.round(v * 1000) / 1000)) }
  }

  schedule() {
    if (!this.running) return
    if ('requestVideoFrameCallback' in HTMLVideoElement.prototype) el.video.requestVideoFrameCallback(this.tick)
    else requestAnimationFrame((now) => this.tick(now, null))
  }

  stop() { this.running = false }

  async detect() {
    this.detecting = true
    try {
      const found = await faceapi.detectSingleFace(el.video, detectorOptions).withFaceLandmarks(true)
      if (!this.running) return
      const w = el.video.videoWidth
      if (!found) {
        this.misses++
        if (this.misses >= NO_FACE_GRACE || !this.regions) {
          this.regions = null
          // In a dark room the detector finds nothing: say what to change.
          const frame = sample([{ x: 0, y: 0, w: el.video.videoWidth, h: el.video.videoHeight }])
          this.setProblem(frame && frame.luma < MIN_LUMA ? 'tooDark' : 'noFace')
        }
        return
      }
      this.misses = 0
      const box = found.detection.box
      const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 }
      const moved = this.lastBox && Math.hypot(centre.x - this.lastBox.x, centre.y - this.lastBox.y) > MAX_SHIFT * box.width
      this.lastBox = centre
      if (moved) this.movedAt = performance.now()
      const regions = skinRegions(found.landmarks.positions, box)
      if (!this.regions || !sameRegions(this.regions, regions, REGION_HOLD * box.width)) {
        this.regions = regions
        this.prevLuma = undefined // new regions: compare from the next frame on
      }
      if (box.width < MIN_FACE_WIDTH * w) this.setProblem('tooSmall')
      else if (this.movedAt && performance.now() - this.movedAt < MOVEMENT_HOLD_MS) this.setProblem('movement')
      else if (this.lastLuma !== undefined && this.lastLuma < MIN_LUMA) this.setProblem('tooDark')
      else {
        this.setProblem(null)
        this.goodFrames = this.t.length // what was recorded up to this detection, which found nothing wrong
      }
    } catch {
      // a detection that failed counts as none
      this.misses++
    } finally {
      this.detecting = false
    }
  }

  setProblem(problem) {
    const was = this.problem
    this.problem = problem
    if (problem) {
      // Scanning on, the heart rate is there: send what was recorded up to the last good detection (the face may have
      // been moving for the second since, unseen) instead of starting over.
      if (this.t.length && this.scanningOn && !this.handed) { this.finish(Math.max(this.goodFrames, this.firstFrames)); return }
      if (this.t.length) { this.reset(); say('restart') }
      guide(problem, 'warn')
      showButtons(['exit', 'retry'])
      el.progress.value = 0
      el.progressLabel.textContent = text.progress
    } else if (was) {
      guide('holdStill', 'ok')
      el.message.textContent = ''
      showButtons(['exit'])
    }
  }

  tick(now, meta) {
    if (!this.running) return
    const frame = meta ? meta.presentedFrames : null
    if (frame === null || frame !== this.lastFrame) {
      this.lastFrame = frame
      if (!this.detecting && now >= this.nextDetect) {
        // While recording, at uneven intervals: each detection costs a frame or two, and a frame lost once a
        // second beats with the pulse (at 72 bpm, 1.2 Hz against 1 Hz: the beats' amplitudes and intervals rise and
        // fall 12 times a minute, a breathing rate the face does not have).
        this.nextDetect = now + (this.t.length ? DETECT_EVERY_RECORDING_MS * (0.7 + 0.6 * Math.random()) : DETECT_EVERY_MS)
        this.detect()
      }
      if (this.regions) {
        const s = sample(this.regions)
        if (s) {
          // Movement between detections: the regions suddenly hold other pixels.
          if (this.prevLuma !== undefined && Math.abs(s.luma - this.prevLuma) > MAX_LUMA_STEP) {
            this.movedAt = performance.now()
            if (this.problem !== 'tooSmall') this.setProblem('movement')
          }
          this.lastLuma = this.prevLuma = s.luma
          if (s.luma < MIN_LUMA && !this.problem) this.setProblem('tooDark')
          const at = meta && meta.captureTime ? meta.captureTime : meta && meta.expectedDisplayTime ? meta.expectedDisplayTime : now
          if (!this.problem && s.rgb && s.skin > 0.2) this.record(at, s.rgb)
        }
      }
    }
    this.schedule()
  }

  record(at, rgb) {
    if (this.t.length && at <= this.t[this.t.length - 1]) return
    if (this.startedAt === null) {
      this.startedAt = at
      el.message.textContent = ''
      guide(this.goal >= LONGEST_CAPTURE_MS ? 'measuringLongest' : this.goal >= LONGER_CAPTURE_MS ? 'measuringLonger'
        : this.goal >= LONG_CAPTURE_MS ? 'measuringLong' : 'measuring', 'ok')
    }
    this.t.push(at)
    this.rgb.push(rgb)
    const elapsed = at - this.startedAt
    el.progress.value = Math.min(100, Math.round((elapsed / this.goal) * 100))
    // The countdown is in the progress label (not a live region: no announcement every second).
    const left = Math.max(0, Math.ceil((this.goal - elapsed) / 1000))
    el.progressLabel.textContent = `${text.progress}: ${text.left(left)}`
    if (elapsed >= this.upTo) this.stop()
    if (elapsed >= this.goal && !this.handed) {
      this.handed = true
      this.firstFrames = this.t.length
      this.onTrace(this.trace(), this.goal < this.upTo)
    }
  }
}

let scan = null

async function startScan() {
  if (busy) return
  busy = true
  buttons('exit')
  el.intro.hidden = true
  el.results.hidden = true
  el.camera.hidden = false
  el.progress.value = 0
  guide('')
  try {
    const res = await call('POST', '/start') // idempotent while in_progress: a retry or a resume
    if (transient(res.status)) { el.camera.hidden = true; trouble('retry', 'exit'); return }
    if (res.status !== 200) { refuse(res.status); return }
    say('cameraStarting')
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) throw Object.assign(new Error('no camera'), { name: 'NotFoundError' })
    const detector = loadDetector()
    stream = await navigator.mediaDevices.getUserMedia({
      audio: false, video: { facingMode: 'user', width: { ideal: 640 }, height: { ideal: 480 }, frameRate: { ideal: 30 } },
    })
    el.video.srcObject = stream
    await el.video.play().catch(() => {})
    say('modelLoading')
    await detector
    el.message.textContent = ''
    guide('noFace', 'warn')
    showButtons(['exit', 'retry'])
    if (lastTry) say('lastTry')
    scan = new Scan(sendTrace, lastTry ? LONG_CAPTURE_MS : CAPTURE_MS)
  } catch (err) {
    stopCamera()
    el.camera.hidden = true
    const name = err && err.name
    say(name === 'NotAllowedError' || name === 'SecurityError' ? 'cameraDenied'
      : name === 'NotFoundError' || name === 'OverconstrainedError' ? 'cameraMissing'
        : name === 'NotReadableError' ? 'cameraError' : 'error')
    buttons('retry', 'exit')
  } finally {
    busy = false
  }
}

// The measurement's retry reasons (vital_scan.rppg.pipeline) and what the page says for each.
const RETRY_TEXT = { dark: 'retryDark', motion: 'retryMotion', weak: 'retryWeak', short: 'retryShort' }

// more: the scan goes on recording while this trace is measured, and may be extended (Scan.extend).
async function sendTrace(trace, more) {
  const mine = scan
  if (!more) {
    stopCamera()
    scan = null
    guide('')
  }
  unsent = null
  sentMs = trace.t[trace.t.length - 1]
  say('sending')
  buttons()
  const body = more ? { ...trace, recording: true } : trace
  let res = await call('POST', '/measurement', body)
  if (res.status === 409) { // not started (e.g. a resume raced): start, then send again
    const started = await call('POST', '/start')
    res = started.status === 200 ? await call('POST', '/measurement', body) : started
  }
  if (res.status === 200 && res.body.status === 'in_progress' && res.body.retriesLeft === 0) lastTry = true
  if (more) {
    const completed = res.status === 200 && res.body.status === 'completed'
    if (scan !== mine && !completed) return // the user started over meanwhile: that scan goes on
    const scanOn = res.status === 200 && res.body.status === 'in_progress' && SCAN_ON_FOR[res.body.scanOn]
    if (scanOn) {
      if (!mine.running) return // the user left meanwhile
      if (mine.t.length > trace.t.length) { // the same capture goes on, as for a weak pulse
        mine.extend(true, true)
        el.message.textContent = ''
        guide(scanOn, 'ok')
        showButtons(['finish', 'exit']) // the heart rate is there: the user may stop at any time (kept if read again)
        return
      }
      // The capture restarted meanwhile (a problem): the first part, sent again as it was, completes the scan.
      mine.stop()
      return sendTrace(trace, false)
    }
    const extend = res.status === 200 && res.body.status === 'in_progress' && EXTEND_FOR[res.body.retry]
    if (extend && scan === mine && mine.running) { // the same capture goes on; its whole trace is sent at the end
      const from = mine.goal
      // On past the minute only while an answer may still say "try again": with none left, the next one completes.
      mine.extend(false, res.body.retriesLeft > 0)
      el.message.textContent = ''
      if (!mine.problem) { // else the guidance names the problem, and the capture restarts when it is gone
        guide(extend, 'ok', (mine.goal - from) / 1000)
        showButtons(['exit'])
      }
      return
    }
    if (scan) scan.stop()
    stopCamera()
    scan = null
    guide('')
  }
  if (transient(res.status)) { // kept: Try again sends it again
    unsent = trace
    el.camera.hidden = true
    say('sendFailed')
    buttons('retry', 'exit')
    return
  }
  if (res.status === 401 || res.status === 410) { refuse(res.status); return }
  if (res.status !== 200) { trouble('retry', 'exit'); return } // a trace refused (422): scan again
  if (res.body.status === 'in_progress' && res.body.retry) { // the engine's gates: a new scan would help
    el.camera.hidden = true
    say(RETRY_TEXT[res.body.retry] || 'error')
    if (lastTry && RETRY_TEXT[res.body.retry]) el.message.textContent += ' ' + text.lastTry
    buttons('retry', 'exit')
    return
  }
  forget()
  showResults(res.body.metrics, res.body.redirectUrl)
}

function showResults(metrics, url) {
  redirectUrl = url || null
  el.camera.hidden = true
  el.results.hidden = false
  el.resultsTitle.textContent = text.resultsTitle
  el.metrics.replaceChildren()
  for (const [name, [label, unit]] of Object.entries(text.metrics)) {
    const value = metrics ? metrics[name] : undefined
    if (typeof value !== 'number' || !Number.isFinite(value)) continue // only what was measured
    const dt = document.createElement('dt')
    dt.textContent = label
    const dd = document.createElement('dd')
    dd.dataset.metric = name
    dd.textContent = `${Math.round(value)}${unit ? ' ' + unit : ''}`
    el.metrics.append(dt, dd)
  }
  const any = el.metrics.children.length > 0
  el.metrics.hidden = !any
  el.message.textContent = ''
  // Breathing rate and variability need a longer calm scan than 30 s (the engine's gates); after a minute, a stiller
  // one. The note names only what is missing.
  const has = (name) => Boolean(metrics) && typeof metrics[name] === 'number'
  const missing = !has('rr') && !has('hrv') ? '' : !has('rr') ? 'Rr' : !has('hrv') ? 'Hrv' : null
  const note = any && missing !== null ? ' ' + text[(sentMs >= LONG_TRACE_MS ? 'stillerScan' : 'longerScan') + missing] : ''
  el.resultsNote.textContent = (any ? text.resultsNote : text.noResults) + note +
    (redirectUrl ? '' : ' ' + text.completed)
  buttons(...(redirectUrl ? ['continue'] : []))
  el.resultsTitle.focus()
}

// ----------------------------------------------------------------------------------------------- start-up
function applyText(locale) {
  const key = textLocale(locale)
  text = TEXT[key]
  document.documentElement.lang = key
  document.title = text.title
  el.title.textContent = text.title
  el.introText.textContent = text.intro
  el.privacy.textContent = text.privacy
  el.progressLabel.textContent = text.progress
  for (const name of BUTTONS) el[name].textContent = text[name]
}

function main() {
  // The token lives in the fragment (never sent to a server by the browser); keep it for this tab only
  // and remove it from the address bar at once, so it is not copied, bookmarked or shared.
  const params = new URLSearchParams(window.location.hash.slice(1))
  token = params.get('scanToken')
  if (window.location.hash) history.replaceState(null, '', window.location.pathname + window.location.search)
  // Never run inside a frame (Hosting also sends frame-ancestors 'none' and X-Frame-Options: DENY).
  let framed = true
  try { framed = window.top !== window.self } catch { framed = true }
  if (framed) { token = null; say('framed'); return }
  if (token) sessionStorage.setItem('vitalScanToken', token)
  else token = sessionStorage.getItem('vitalScanToken')
  if (!token) { refuse(401); return }

  el.start.addEventListener('click', startScan)
  el.retry.addEventListener('click', () => {
    if (!loaded) { load(); return }
    if (unsent) { sendTrace(unsent); return }
    if (scan) scan.stop()
    scan = null
    stopCamera()
    startScan()
  })
  el.finish.addEventListener('click', () => { if (scan && scan.scanningOn && !scan.handed) scan.finish() })
  el.exit.addEventListener('click', () => { if (scan) scan.stop(); exitScan() })
  el.continue.addEventListener('click', () => leaveTo(redirectUrl, 'completed'))
  load()
}

async function load() {
  say('loading')
  buttons()
  const res = await readSession()
  if (transient(res.status)) { trouble('retry'); return }
  if (res.status !== 200) { refuse(res.status); return }
  loaded = true
  lastTry = res.body.retriesLeft === 0 // also after a reload: the last scan records a minute
  applyText(res.body.locale || 'en')
  if (res.body.status !== 'created' && res.body.status !== 'in_progress') { refuse(410); return }
  el.message.textContent = ''
  el.intro.hidden = false
  buttons('start', 'exit')
  loadDetector().catch(() => {}) // warm up while the user reads
}

main()
