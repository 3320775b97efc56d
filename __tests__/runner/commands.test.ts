/**
 * Commands of ours issued while Jenkins' console prints (workflow commands
 * stopped) wait for the resume: printed inside the stopped region, the
 * runner would show `::warning::…` and `::debug::…` as text, and the warning
 * would be no annotation.
 */
import nock from 'nock'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { withCommandsStopped } from '../../src/follow/log-stream.js'
import { holdCommands, whenCommandsRun } from '../../src/runner/commands.js'
import { coreLogger, coreStepIO } from '../../src/step/step-io.js'
import { createClient } from '../../src/step/create-client.js'
import { parseSettings } from '../../src/inputs/inputs.js'
import type { Input } from '../../src/util/constants.js'
import { commands, runnerView } from '../fixtures/runner-log.js'

let out: string
beforeEach(() => {
  out = ''
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk)
    return true
  })
})
afterEach(() => {
  vi.restoreAllMocks()
  nock.cleanAll()
})

describe('commands of ours while the console prints', () => {
  it('a warning, a debug line and an annotation said mid-console come after the resume, in order', async () => {
    await withCommandsStopped(
      text => void process.stdout.write(text),
      async () => {
        process.stdout.write('console line 1\n')
        coreLogger.warning('deep part left out')
        coreLogger.debug('poll failed, trying again')
        coreStepIO.annotate('expected 1 but was 2', 'test failed', { file: 'a.ts', line: 3 })
        process.stdout.write('console line 2\n')
      }
    )
    const lines = out.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^::stop-commands::[0-9a-f-]{36}$/)
    expect(lines.slice(1, 4)).toEqual([
      'console line 1',
      'console line 2',
      expect.stringMatching(/^::[0-9a-f-]{36}::$/)
    ])
    expect(lines.slice(4)).toEqual([
      '::warning::deep part left out',
      '::debug::poll failed, trying again',
      '::error title=test failed,file=a.ts,line=3::expected 1 but was 2'
    ])
    // As the runner reads it: each is a command, none is console text.
    expect(commands(out).map(c => c.name)).toEqual(['stop-commands', 'warning', 'debug', 'error'])
    expect(
      runnerView(out)
        .filter(l => l.stopped)
        .map(l => l.text)
    ).not.toContain('::warning::deep part left out')
  })

  it('outside the console, a warning is issued at once', () => {
    coreLogger.warning('now')
    expect(out).toBe('::warning::now\n')
  })

  it('commands resume (and what was held is issued) when the console read throws', async () => {
    await expect(
      withCommandsStopped(
        text => void process.stdout.write(text),
        async () => {
          coreLogger.warning('before the failure')
          throw new Error('read failed')
        }
      )
    ).rejects.toThrow('read failed')
    expect(out.trimEnd().split('\n').at(-1)).toBe('::warning::before the failure')
    coreLogger.warning('after')
    expect(out.trimEnd().split('\n').at(-1)).toBe('::warning::after')
  })

  it('nested regions issue what was held once the outer one resumes', () => {
    const issued: string[] = []
    const outer = holdCommands()
    const inner = holdCommands()
    whenCommandsRun(() => issued.push('a'))
    inner()
    inner()
    whenCommandsRun(() => issued.push('b'))
    expect(issued).toEqual([])
    outer()
    expect(issued).toEqual(['a', 'b'])
    whenCommandsRun(() => issued.push('c'))
    expect(issued).toEqual(['a', 'b', 'c'])
  })

  it('a session cookie Jenkins gives while the console prints is masked after it, never printed as text', async () => {
    const inputs: Record<string, string> = {
      url: 'http://jenkins.test',
      user: 'u',
      token: 'secret-token',
      job: 'app'
    }
    const settings = parseSettings((name: Input) => inputs[name] ?? '')
    const api = createClient(settings)
    const cookie = 'node0sessioncookie1234'
    nock('http://jenkins.test')
      .get('/job/app/1/logText/progressiveText')
      .query({ start: '0' })
      .reply(200, 'line\n', {
        'Set-Cookie': `JSESSIONID.x=${cookie}; Path=/; HttpOnly`,
        'X-Text-Size': '5',
        'X-More-Data': 'true'
      })
    out = ''
    await withCommandsStopped(
      text => void process.stdout.write(text),
      async () => {
        await api.progressiveText(
          { job: ['app'], number: 1, url: 'http://jenkins.test/job/app/1/' },
          0
        )
      }
    )
    api.http.dispose()
    const view = runnerView(out)
    expect(
      view
        .filter(l => l.stopped)
        .map(l => l.text)
        .join('\n')
    ).not.toContain(cookie)
    expect(commands(out, 'add-mask').map(c => c.value)).toContain(cookie)
  })

  it('a write that throws (stdout gone) does not leave commands held', async () => {
    const failing = (): void => {
      throw new Error('EPIPE')
    }
    await expect(withCommandsStopped(failing, async () => 'never')).rejects.toThrow('EPIPE')
    const issued: string[] = []
    whenCommandsRun(() => issued.push('now'))
    expect(issued).toEqual(['now'])
  })
})
