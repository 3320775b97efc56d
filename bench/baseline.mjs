/* global fetch, URLSearchParams */
/**
 * The benchmark's baseline: what the common alternatives do, following the
 * interface document's curl recipe (seed-interface.md) and most published
 * actions: fetch a crumb with the xml xpath form, trigger (no `delay`, so
 * Jenkins' quiet period applies), then poll the job's last build every 10 s
 * until it has a result, and report that build.
 *
 * Plain JavaScript run directly by Node 24, like the action's bundle, so that
 * process start-up is comparable (no TypeScript loader in the way).
 *
 * Usage: node baseline.mjs URL USER PASSWORD JOB [NAME=value ...]
 * Environment: BASELINE_INTERVAL_MS (default 10000), BASELINE_TIMEOUT_MS (default 600000).
 * Prints one JSON line {"number","result"} and exits 0 on SUCCESS, 1 otherwise.
 */
const [url, user, password, job, ...params] = process.argv.slice(2)
if (!url || !user || !password || !job) {
  console.error('usage: node baseline.mjs URL USER PASSWORD JOB [NAME=value ...]')
  process.exit(2)
}
const interval = Number(process.env.BASELINE_INTERVAL_MS ?? 10_000)
const deadline = Date.now() + Number(process.env.BASELINE_TIMEOUT_MS ?? 600_000)
const authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
const jobPath = job
  .split('/')
  .map(name => `job/${encodeURIComponent(name)}`)
  .join('/')
// Since Jenkins 2.176.2 a crumb only holds with the session it was issued in
// (jenkins-api.md 1.3); curl -c/-b in the recipes that still work today.
let cookie = ''

async function request(method, path, headers = {}, body) {
  const res = await fetch(`${url}/${path}`, {
    method,
    headers: { Authorization: authorization, ...(cookie && { Cookie: cookie }), ...headers },
    body,
    redirect: 'manual'
  })
  const set = res.headers.get('set-cookie')
  if (set) cookie = set.split(';')[0]
  return res
}

const sleep = ms => new Promise(resolve => setTimeout(resolve, ms))

async function main() {
  const crumbRes = await request(
    'GET',
    `crumbIssuer/api/xml?xpath=${encodeURIComponent('concat(//crumbRequestField,":",//crumb)')}`
  )
  if (crumbRes.status !== 200) throw new Error(`crumb: HTTP ${crumbRes.status}`)
  const crumbText = await crumbRes.text()
  const colon = crumbText.indexOf(':')
  const crumbHeader = { [crumbText.slice(0, colon)]: crumbText.slice(colon + 1) }

  const form = new URLSearchParams()
  for (const pair of params) {
    const eq = pair.indexOf('=')
    form.append(pair.slice(0, eq), pair.slice(eq + 1))
  }
  const trigger = await request(
    'POST',
    `${jobPath}/${params.length ? 'buildWithParameters' : 'build'}`,
    { ...crumbHeader, 'Content-Type': 'application/x-www-form-urlencoded' },
    form.toString()
  )
  await trigger.arrayBuffer()
  if (trigger.status !== 201 && trigger.status !== 303) {
    throw new Error(`trigger: HTTP ${trigger.status}`)
  }

  // The recipe reads lastBuild, which right after the trigger is still the
  // previous build: wait one interval before the first look.
  while (Date.now() < deadline) {
    await sleep(interval)
    const res = await request('GET', `${jobPath}/lastBuild/api/json`, crumbHeader)
    if (res.status === 404) {
      await res.arrayBuffer()
      continue
    }
    if (res.status !== 200) throw new Error(`lastBuild: HTTP ${res.status}`)
    const build = await res.json()
    // "The result of the last build": done once it has one.
    if (build.result !== null && build.result !== undefined) {
      console.log(JSON.stringify({ number: build.number, result: build.result }))
      return build.result === 'SUCCESS' ? 0 : 1
    }
  }
  throw new Error('timed out')
}

main().then(
  code => process.exit(code),
  error => {
    console.error(`baseline: ${error.message}`)
    process.exit(3)
  }
)
