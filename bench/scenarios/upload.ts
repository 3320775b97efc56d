/**
 * Uploading a big file to a file parameter (`files`): our throughput and
 * peak RSS against `curl -F NAME=@file` sending the same file to the same
 * test server's buildWithParameters. The file is made in the temporary
 * folder at bench time and removed after; it is never committed.
 */
import { execFile } from 'node:child_process'
import { once } from 'node:events'
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { JobSpec, TestJenkins, UserSpec } from '../../test-server/index.js'
import type { Scenario, Section } from '../scenario.js'
import { closeServer, server } from '../runners/jenkins.js'
import { describeFailure, runOurs } from '../runners/runs.js'
import { formatMb, median } from '../stats.js'
import { log } from '../util.js'

const run = promisify(execFile)
const MB = 1024 * 1024

interface Settings {
  fileBytes: number
  runs: number
}

const settings = (quick: boolean): Settings =>
  quick ? { fileBytes: 50 * MB, runs: 1 } : { fileBytes: 500 * MB, runs: 3 }

const UPLOADER: UserSpec = {
  name: 'uploader',
  password: 'uploader-password',
  apiToken: '11aa22bb33cc44dd55ee66ff7788990011',
  permissions: ['admin']
}

const JOB: JobSpec = {
  concurrent: true,
  parameters: [
    { name: 'RUN', type: 'string', default: '' },
    { name: 'PACKAGE', type: 'file' }
  ],
  script: { durationMs: 100 }
}

interface Measured {
  /** Bytes per second of the upload, for each run. */
  ours: number[]
  curl: number[]
  /** Peak RSS of our step, for each run. */
  rss: number[]
  /** The test server stored exactly the file each time. */
  intact: boolean
}

/** A file of `bytes` pseudo-random bytes (1 MiB repeated), written without holding it in memory. */
async function makeFile(path: string, bytes: number): Promise<void> {
  const block = Buffer.alloc(MB)
  for (let i = 0; i < block.length; i++) block[i] = (i * 2654435761) >>> 24
  const out = createWriteStream(path)
  for (let written = 0; written < bytes; written += MB) {
    if (!out.write(block.subarray(0, Math.min(MB, bytes - written)))) {
      await once(out, 'drain')
    }
  }
  await new Promise<void>((resolve, reject) => {
    out.once('error', reject)
    out.end(() => resolve())
  })
}

/** curl's own measure of the same upload: `-w %{speed_upload}` (bytes/s over the whole transfer). */
async function curlUpload(jenkins: TestJenkins, file: string, id: string): Promise<number> {
  const { stdout } = await run('curl', [
    '--silent',
    '--show-error',
    '--fail',
    '--output',
    '/dev/null',
    '--user',
    `${UPLOADER.name}:${UPLOADER.apiToken}`,
    '-F',
    `PACKAGE=@${file}`,
    '-F',
    `RUN=${id}`,
    '--write-out',
    '%{speed_upload}',
    `${jenkins.url}/job/upload/buildWithParameters?delay=0sec`
  ])
  return Number(stdout.trim())
}

const UNIT = { B: 1, KiB: 1024, MiB: MB, GiB: 1024 * MB }

/** "271 ms", "4.2 s", "1 min 5 s" (util/duration.ts' forms) in seconds. */
function seconds(text: string): number {
  let total = 0
  for (const [, n, unit] of text.matchAll(/([\d.]+) (ms|s|min|h)\b/g)) {
    total += Number(n) * { ms: 0.001, s: 1, min: 60, h: 3600 }[unit as 'ms' | 's' | 'min' | 'h']
  }
  if (!(total > 0)) throw new Error(`upload: no duration in "${text}"`)
  return total
}

/**
 * Our rate, from the step's own log line: "Uploaded S of files in T (R/s)."
 * or, for an upload under a second (no rate said), S over T.
 */
function oursRate(stdout: string): number {
  const match =
    /Uploaded ([\d.]+) (B|KiB|MiB|GiB) of files in (.+?)(?: \(([\d.]+) (B|KiB|MiB|GiB)\/s\))?\.$/m.exec(
      stdout
    )
  if (!match) throw new Error(`upload: no upload line in the step log:\n${stdout.slice(-2000)}`)
  const [, size, sizeUnit, time, rate, rateUnit] = match
  if (rate !== undefined) return Number(rate) * UNIT[rateUnit as keyof typeof UNIT]
  return (Number(size) * UNIT[sizeUnit as keyof typeof UNIT]) / seconds(time ?? '')
}

async function measure(s: Settings): Promise<Measured> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-upload-'))
  const file = join(dir, 'package.bin')
  const measured: Measured = { ours: [], curl: [], rss: [], intact: true }
  try {
    await makeFile(file, s.fileBytes)
    for (let i = 0; i < s.runs; i++) {
      // A server per round: each keeps its uploads on disk until it closes.
      const jenkins = await server({ users: [UPLOADER], quietPeriodSec: 0, jobs: { upload: JOB } })
      try {
        log(`upload: round ${i + 1}/${s.runs}, ${formatMb(s.fileBytes)}`)
        // The two sides take turns going first: the one after the other meets
        // the server's disk still writing the first upload out.
        const viaCurl = async (): Promise<void> => {
          measured.curl.push(await curlUpload(jenkins, file, `curl-${i}`))
        }
        const viaOurs = async (): Promise<void> => {
          const ours = await runOurs({
            jenkins,
            user: UPLOADER,
            job: 'upload',
            id: `ours-${i}`,
            inputs: { files: 'PACKAGE=package.bin', wait: 'false' },
            env: { GITHUB_WORKSPACE: dir },
            rss: true,
            killAfterMs: 300_000
          })
          // wait: false reports no build: the exit status and the stored file say it worked.
          if (ours.code !== 0) throw new Error(`upload: ${describeFailure(ours)}`)
          measured.ours.push(oursRate(ours.stdout))
          measured.rss.push(ours.peakRssBytes ?? NaN)
        }
        if (i % 2 === 0) {
          await viaOurs()
          await viaCurl()
        } else {
          await viaCurl()
          await viaOurs()
        }
        for (const id of [`curl-${i}`, `ours-${i}`]) {
          const stored = jenkins.builds('upload').find(b => b.parameters.RUN === id)
          const size = stored?.parameterValues.find(p => p.name === 'PACKAGE')?.file?.size
          if (size !== s.fileBytes) measured.intact = false
        }
      } finally {
        await closeServer(jenkins)
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  return measured
}

function section(m: Measured, s: Settings): Section {
  const ours = median(m.ours)
  const curl = median(m.curl)
  const rss = median(m.rss)
  const rate = (bytesPerSecond: number): string => `${(bytesPerSecond / MB).toFixed(0)} MiB/s`
  const throughput = ours / curl
  return {
    settings: [
      `- Upload: a ${formatMb(s.fileBytes)} file made in the temporary folder at bench time, uploaded to a freestyle job's file parameter ${s.runs} time(s) by each side, one server per round (it keeps the uploads on disk): ours with \`files\` and \`wait: false\`, its rate from its own log line; \`curl -F PACKAGE=@file\` to the same buildWithParameters, its rate from \`-w %{speed_upload}\`.`
    ],
    rows: [
      {
        metric: `upload throughput, ${formatMb(s.fileBytes)} file (median)${m.intact ? '' : ' (FILE NOT STORED WHOLE)'}`,
        ours: rate(ours),
        baseline: `${rate(curl)} (curl -F)`,
        ratio: throughput.toFixed(2),
        target: '≥ 0.8× curl',
        met: throughput >= 0.8 && m.intact,
        missedBy: `${(0.8 - throughput).toFixed(2)}×`,
        why: 'The test server parses the body with busboy and writes it to disk for both sides; a gap is the step reading the file and writing the request through Node streams.'
      },
      {
        metric: `peak RSS while uploading ${formatMb(s.fileBytes)} (median)`,
        ours: formatMb(rss),
        baseline: '',
        ratio: '',
        target: '≤ 100 MB',
        met: rss <= 100 * MB,
        missedBy: formatMb(rss - 100 * MB),
        why: 'The file is streamed with backpressure in 1 MiB reads, a scavenge every 8 MiB freeing the read buffers; the rest is Node with the bundle loaded.'
      }
    ],
    notes: [
      `- **Upload**: per run, ours ${m.ours.map(rate).join(', ')}; curl ${m.curl.map(rate).join(', ')}; peak RSS ${m.rss.map(formatMb).join(', ')}. The server stored every file whole: ${m.intact ? 'yes' : '**no**'}.`
    ]
  }
}

export const upload: Scenario = {
  name: 'upload',
  summary: 'a 500 MB file to a file parameter against curl -F: throughput and peak RSS',
  async run(context) {
    const s = settings(context.quick)
    return section(await measure(s), s)
  }
}
