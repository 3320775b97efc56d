/**
 * The page "Run it from a terminal" (docs/jenkins-build.md) is code: every
 * command it shows is run here, as written, against a test server set up as
 * the docs say, and what it prints is compared with the transcript line for line
 * (the server's address and a duration aside). A command that cannot run
 * here (the clone and `npm ci` this suite runs in) is checked to be exactly
 * that.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { constants, tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../../scripts/action-runner.js'
import { readActionInputs } from '../../src/cli/action-yml.js'
import { parseCommandLine, stepInputs } from '../../src/cli/args.js'
import { parseCli } from '../../test-server/cli-options.js'
import { startJenkins, type TestJenkins } from '../../test-server/index.js'
import type { ServerOptions } from '../../test-server/types.js'

/** The text under a `## ` or `#### ` heading of `file`, up to the next heading of that level or above (a `#` in a code block is none). */
function section(file: string, heading: string): string {
  const level = /^#+/.exec(heading)?.[0].length ?? 2
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n')
  const start = lines.indexOf(heading)
  if (start < 0) throw new Error(`${file} has no heading ${heading}`)
  let fenced = false
  let end = start + 1
  for (; end < lines.length; end++) {
    const line = lines[end] ?? ''
    if (line.startsWith('```')) fenced = !fenced
    const hashes = /^(#+) /.exec(line)?.[1]?.length
    if (!fenced && hashes !== undefined && hashes <= level) break
  }
  return lines.slice(start + 1, end).join('\n')
}

interface Block {
  lang: string
  text: string
}

function blocks(text: string): Block[] {
  return [...text.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map(m => ({
    lang: m[1] ?? '',
    text: m[2] ?? ''
  }))
}

const SECTION = section('docs/jenkins-build.md', '# Run it from a terminal: `jenkins-build`')
const BLOCKS = blocks(SECTION)

interface Step {
  command: string
  /** What the transcript shows it print. */
  output: string
}

/** A `console` block: `$ command` lines, each followed by what it printed. */
function transcript(text: string): Step[] {
  const steps: Step[] = []
  for (const line of text.split('\n')) {
    if (line.startsWith('$ ')) steps.push({ command: line.slice(2), output: '' })
    else if (steps.length > 0 && line !== '') {
      const step = steps[steps.length - 1] as Step
      step.output += `${line}\n`
    }
  }
  return steps
}

/** The variables of an `export A=x B=y` line. */
function exported(line: string): Record<string, string> {
  const words = /^export (.*)$/.exec(line.trim())?.[1]?.split(/\s+/) ?? []
  return Object.fromEntries(
    words.map(w => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)])
  )
}

/** The user's few variables, as a terminal has them. */
function userEnv(temp: string): Record<string, string> {
  const env: Record<string, string> = { TMPDIR: temp }
  for (const key of ['PATH', 'HOME', 'LANG']) {
    const value = process.env[key]
    if (value !== undefined) env[key] = value
  }
  return env
}

interface Ran {
  status: number
  output: string
}

/** Runs `command` in bash in the clone, stdout and stderr together as a terminal shows them. */
function bash(
  command: string,
  env: Record<string, string>,
  options: { input?: string; interruptAfter?: string } = {}
): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', `{\n${command}\n} 2>&1`], {
      cwd: ROOT,
      env,
      stdio: ['pipe', 'pipe', 'inherit'],
      // A process group of its own, as a terminal's foreground job: Ctrl+C reaches all of it.
      detached: true
    })
    let output = ''
    let interrupted = false
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk
      const after = options.interruptAfter
      if (after !== undefined && !interrupted && output.includes(after) && child.pid) {
        interrupted = true
        process.kill(-child.pid, 'SIGINT')
      }
    })
    child.stdin.end(options.input ?? '')
    const killer = setTimeout(() => child.pid && process.kill(-child.pid, 'SIGKILL'), 90_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(killer)
      resolve({ status: code ?? 128 + (signal ? constants.signals[signal] : 0), output })
    })
  })
}

/** The transcript's text and the run's, with what differs between runs made equal. */
function normalise(text: string, url: string, shownUrl: string): string {
  return text
    .split(url)
    .join(shownUrl)
    .replace(/ in \d+ ms\./g, ' in N ms.')
}

/** Runs the steps of a transcript in order, as typed at one prompt. */
async function replay(
  steps: Step[],
  jenkins: TestJenkins,
  shownUrl: string,
  env: Record<string, string>,
  interruptAfter?: string
): Promise<void> {
  let last: Ran | undefined
  for (const step of steps) {
    if (step.command.startsWith('export ')) {
      const variables = exported(step.command)
      for (const [name, value] of Object.entries(variables)) {
        env[name] = value.split(shownUrl).join(jenkins.url)
      }
      continue
    }
    if (step.command === 'echo $?') {
      expect(`${last?.status}\n`, last?.output).toBe(step.output)
      continue
    }
    last = await bash(step.command, env, { interruptAfter })
    // The terminal shows ^C where Ctrl+C was typed: it is no output of the command.
    const shown = step.output.replace('^C', '')
    expect(normalise(last.output, jenkins.url, shownUrl), step.command).toBe(
      normalise(shown, jenkins.url, shownUrl)
    )
  }
}

async function withServer(
  options: ServerOptions,
  test: (jenkins: TestJenkins, env: Record<string, string>) => Promise<void>
): Promise<void> {
  const jenkins = await startJenkins({ ...options, port: 0, quietPeriodSec: 0 })
  const temp = mkdtempSync(join(tmpdir(), 'readme-cli-'))
  try {
    await test(jenkins, userEnv(temp))
  } finally {
    await jenkins.close()
    rmSync(temp, { recursive: true, force: true })
  }
}

describe.concurrent(
  "docs/jenkins-build.md, 'Run it from a terminal': every command runs as shown",
  () => {
    it('the set-up block: the clone and npm ci this suite runs in, then --help', async () => {
      const setup = BLOCKS[0]
      expect(setup?.lang).toBe('sh')
      const lines = (setup?.text ?? '').trim().split('\n')
      expect(lines.slice(0, 2)).toEqual([
        'git clone https://github.com/OWNER/REPO.git && cd REPO',
        'npm ci'
      ])
      expect(lines.slice(2)).toEqual(['npx --no-install jenkins-build --help'])
      const temp = mkdtempSync(join(tmpdir(), 'readme-cli-'))
      try {
        const help = await bash(lines[2] ?? '', userEnv(temp))
        expect(help.status, help.output).toBe(0)
        expect(help.output).toMatch(/^Usage: jenkins-build /)
      } finally {
        rmSync(temp, { recursive: true, force: true })
      }
    }, 120_000)

    it("the README's Development section: the page's set-up, --no-install, and a link to this page", () => {
      const development = section('README.md', '## Development')
      const [setup] = blocks(development)
      const page = (BLOCKS[0]?.text ?? '').trim().split('\n')
      const command = page.at(-1) ?? ''
      expect(setup?.lang).toBe('sh')
      // The page's set-up between the clone and the command (npm ci) opens the README's.
      const commands = (setup?.text ?? '').split('\n').map(line => line.replace(/#.*/, '').trim())
      expect(commands.slice(0, page.length - 2)).toEqual(page.slice(1, -1))
      expect(command).toMatch(/^npx --no-install jenkins-build /)
      expect(development).toContain(`\`${command}\``)
      expect(development).toContain('Always give `--no-install`')
      expect(development).toContain('(docs/jenkins-build.md)')
    })

    it('the other ways it names: npm exec --no --, --prefix from elsewhere, node dist/cli/index.js', () => {
      for (const way of [
        'npm exec --no -- jenkins-build',
        'npx --no-install --prefix /path/to/clone jenkins-build',
        'node /path/to/clone/dist/cli/index.js'
      ]) {
        expect(SECTION).toContain(`\`${way} …\``)
        const temp = mkdtempSync(join(tmpdir(), 'readme-cli-'))
        try {
          const command = `${way.replace('/path/to/clone', ROOT)} --help`
          // From the clone, or from elsewhere when the command names the clone.
          const cwd = way.includes('/path/to/clone') ? temp : ROOT
          const r = spawnSync('bash', ['-c', command], {
            cwd,
            env: userEnv(temp),
            encoding: 'utf8'
          })
          expect(r.status, `${command}\n${r.stdout}${r.stderr}`).toBe(0)
          expect(r.stdout).toMatch(/^Usage: jenkins-build /)
        } finally {
          rmSync(temp, { recursive: true, force: true })
        }
      }
    }, 120_000)

    it('the messages it quotes are what the command prints', async () => {
      const paragraph =
        SECTION.split('\n\n').find(p => p.includes("The action's messages name")) ?? ''
      const quoted = [
        ...paragraph.split("The action's messages name")[1]!.matchAll(/`([^`]+)`/g)
      ].map(m => m[1] ?? '')
      expect(quoted.length).toBeGreaterThan(1)
      const temp = mkdtempSync(join(tmpdir(), 'readme-cli-'))
      try {
        // Input errors, said before any request: no server is needed behind the URL.
        const env = { ...userEnv(temp), JENKINS_URL: 'http://127.0.0.1:9' }
        const runs = [
          await bash('npx --no-install jenkins-build --user ci --job hello', env),
          await bash('npx --no-install jenkins-build --user ci', {
            ...env,
            JENKINS_TOKEN: 'not-a-real-token'
          })
        ]
        const printed = runs.map(r => r.output).join('')
        for (const text of quoted) expect(printed).toContain(text)
      } finally {
        rmSync(temp, { recursive: true, force: true })
      }
    }, 120_000)

    it('the transcripts against the default test server', async () => {
      const [block] = BLOCKS.filter(b => b.lang === 'console')
      const steps = transcript(block?.text ?? '')
      expect(steps.length).toBeGreaterThan(5)
      // --summary summary.md writes into the clone, where the README runs it: a file of that name there is put back.
      const summary = join(ROOT, 'summary.md')
      const kept = existsSync(summary) ? readFileSync(summary) : undefined
      try {
        // The server of "Run the test server by hand": npm run server with no flags.
        await withServer(parseCli([]).options, async (jenkins, env) => {
          await replay(steps, jenkins, 'http://127.0.0.1:8080', env)
        })
        expect(readFileSync(summary, 'utf8')).toContain('FAILURE')
      } finally {
        if (kept) writeFileSync(summary, kept)
        else rmSync(summary, { force: true })
      }
    }, 120_000)

    it("Ctrl+C: the server of 'Reproduce a failing workflow' with --job sleepy:10m, status 130", async () => {
      const block = BLOCKS.filter(b => b.lang === 'console')[1]
      const steps = transcript(block?.text ?? '')
      // That server's command line, as docs/test-server.md gives it, with the job added.
      const reproduce = section('docs/test-server.md', '## Reproduce a failing workflow')
      const line = /^npm run server -- ((?:.*\\\n)*.*)$/m.exec(reproduce)?.[1] ?? ''
      const words = spawnSync('bash', ['-c', `printf '%s\\n' ${line.replace(/\\\n/g, ' ')}`], {
        encoding: 'utf8'
      })
        .stdout.split('\n')
        .filter(w => w !== '')
      expect(words).toContain('--token')
      const server = parseCli([...words, '--job', 'sleepy:10m'])
      const token = /JENKINS_TOKEN=(\S+)/.exec(reproduce)?.[1] ?? ''
      await withServer(server.options, async (jenkins, env) => {
        // Its transcript follows the run of team/deploy there: queue item 1 was that one.
        await bash(`npx --no-install jenkins-build --job team/deploy -p ENV=prod`, {
          ...env,
          JENKINS_URL: jenkins.url,
          JENKINS_USER: 'ci',
          JENKINS_TOKEN: token
        })
        const before = (steps[0]?.output ?? '').split('^C')[0] ?? ''
        await replay(
          steps,
          jenkins,
          'http://127.0.0.1:8081',
          { ...env, JENKINS_URL: jenkins.url, JENKINS_USER: 'ci', JENKINS_TOKEN: token },
          normalise(before, jenkins.url, 'http://127.0.0.1:8081').split('\n').at(-2)
        )
      })
    }, 120_000)

    it('a workflow step turned into flags: the same inputs, and it runs', async () => {
      const yaml = BLOCKS.find(b => b.lang === 'yaml')
      const script = BLOCKS.filter(b => b.lang === 'sh').at(-1)?.text ?? ''
      const inputs = readActionInputs(join(ROOT, 'action.yml'))
      // The with: block, as the runner passes it (secrets are the token).
      const withBlock = (yaml?.text ?? '').replace('${{ secrets.JENKINS_TOKEN }}', 'the-token')
      const { parse } = await import('yaml')
      const step = (parse(withBlock) as Array<{ with: Record<string, string> }>)[0]
      const fromYaml = stepInputs(inputs, step?.with ?? {}, {})
      const exportLine = script.split('\n').find(l => l.startsWith('export ')) ?? ''
      const command = script.split('\n').find(l => l.startsWith('npx ')) ?? ''
      const argv = command.split(/\s+/).slice(3)
      const env = { ...exported(exportLine), JENKINS_TOKEN: 'the-token' }
      const fromFlags = stepInputs(inputs, parseCommandLine(argv, inputs, env).given, env)
      // The same step, but for the parameters' form: lines there, JSON from -p.
      const { parameters: yamlParameters, ...yamlRest } = fromYaml
      const { parameters: flagParameters, ...flagRest } = fromFlags
      expect(flagRest).toEqual(yamlRest)
      expect(JSON.parse(flagParameters ?? '')).toEqual(
        Object.fromEntries(
          (yamlParameters ?? '')
            .trim()
            .split('\n')
            .map(l => l.split('='))
        )
      )

      // And it runs, against a server with that user and job, the token typed at `read -rs`.
      const options: ServerOptions = {
        users: [{ name: 'ci-bot', apiToken: '11ab'.padEnd(34, '0') }],
        jobs: {
          team: {
            type: 'folder',
            jobs: {
              deploy: {
                parameters: [
                  { name: 'ENV', type: 'string', default: 'dev' },
                  { name: 'REF', type: 'string', default: '' }
                ],
                script: { durationMs: 100 }
              }
            }
          }
        }
      }
      await withServer(options, async (jenkins, env) => {
        const shown = exported(exportLine).JENKINS_URL ?? ''
        const r = await bash(script.split(shown).join(jenkins.url), env, {
          input: `${'11ab'.padEnd(34, '0')}\n`
        })
        expect(r.status, r.output).toBe(0)
        const [build] = jenkins.builds('team/deploy')
        expect(build?.parameters).toEqual({ ENV: 'staging', REF: 'main' })
        expect(r.output).toContain(`Jenkins build team/deploy #${build?.number} finished: SUCCESS`)
      })
    }, 120_000)
  }
)
