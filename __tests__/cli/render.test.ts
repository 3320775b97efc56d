import { describe, expect, it } from 'vitest'
import { Redaction } from '../../src/util/redaction.js'
import { StepLog, terminalSafe, type RenderOptions } from '../../src/cli/render.js'

/** Renders stdout (and stderr) as the command shows them. */
function render(
  stdout: string,
  options: Partial<RenderOptions> = {},
  masker = new Redaction('runner'),
  stderr = ''
): string {
  let out = ''
  const log = new StepLog(text => (out += text), masker, {
    verbose: false,
    color: false,
    ...options
  })
  log.feed('stdout', stdout)
  if (stderr) log.feed('stderr', stderr)
  log.end()
  return out
}

describe('StepLog: a step log for a terminal', () => {
  it('groups as headings, annotations with their data unescaped, plain lines as they are', () => {
    const stdout = [
      '::group::Console of Jenkins hello #3',
      'Started by user admin',
      '::endgroup::',
      '::warning::Jenkins said 100%25%0Asecond line',
      '::notice title=t::noted',
      '::error file=a.ts,line=3::Jenkins build #3 ended FAILURE',
      '##[error]v1 form%5D',
      '::unknown::is text',
      ''
    ].join('\n')
    expect(render(stdout)).toBe(
      [
        '=== Console of Jenkins hello #3',
        'Started by user admin',
        'Warning: Jenkins said 100%',
        'second line',
        'Notice: t: noted',
        'Error: Jenkins build #3 ended FAILURE',
        'Error: v1 form]',
        '::unknown::is text',
        ''
      ].join('\n')
    )
  })

  it("a failed test keeps its name (the annotation's title), and its text is not reworded", () => {
    let out = ''
    const shown = new StepLog(text => (out += text), new Redaction('runner'), {
      verbose: false,
      color: false,
      wording: text => text.replace("'url'", '--url')
    })
    const stdout = [
      "::error title=CalcTest.divides%2C by zero::expected 'url'%0ACalcTest — http://j/1/",
      "::error::Input 'url' is required",
      ''
    ].join('\n')
    shown.feed('stdout', stdout)
    expect(out).toBe(
      [
        "Error: CalcTest.divides, by zero: expected 'url'",
        // Every line of a failed test's message starts as its first does.
        'Error: CalcTest.divides, by zero: CalcTest — http://j/1/',
        'Error: Input --url is required',
        ''
      ].join('\n')
    )
    // The last error is why the step failed (--json's `error`).
    expect(shown.errors).toEqual([
      "CalcTest.divides, by zero: expected 'url'\nCalcTest — http://j/1/",
      'Input --url is required'
    ])
  })

  it('a failed test at a known file and line reads `path:line: test name: message`', () => {
    const stdout = [
      '::error title=CalculatorTest.divides by zero,file=src/test/java/CalculatorTest.java,line=42::expected 4%0ACalculatorTest — http://j/1/',
      ''
    ].join('\n')
    expect(render(stdout)).toBe(
      [
        'src/test/java/CalculatorTest.java:42: CalculatorTest.divides by zero: expected 4',
        'src/test/java/CalculatorTest.java:42: CalculatorTest.divides by zero: CalculatorTest — http://j/1/',
        ''
      ].join('\n')
    )
  })

  it("a secret over two lines of a failed test's message is masked before the lines get their start", () => {
    const masker = new Redaction('runner')
    masker.add('top\nsecret')
    let out = ''
    new StepLog(text => (out += text), masker, { verbose: false, color: false }).feed(
      'stdout',
      '::error title=T::a top%0Asecret b%0Ac\n'
    )
    // Masked as a whole, then each line started as the first.
    expect(out).toBe('Error: T: a *** b\nError: T: c\n')
  })

  it("a failure's last console lines are not shown again right after the whole console", () => {
    const console = ['Started by user admin', '\x1b[31merror: boom\x1b[0m', 'Finished: FAILURE']
    const failure = (lines: string[]): string =>
      `::error::Jenkins build failing #1 finished FAILURE%0ALast ${lines.length} console lines:%0A${lines.join('%0A')}`
    const shownConsole = [
      '::group::Console of Jenkins failing #1',
      '::stop-commands::tok3n12345',
      ...console,
      '',
      '::tok3n12345::',
      '::endgroup::',
      'Jenkins build failing #1 finished: FAILURE in 401 ms.'
    ]
    const tail = ['Started by user admin', 'error: boom', 'Finished: FAILURE']
    expect(render([...shownConsole, failure(tail), ''].join('\n'))).toBe(
      [
        '=== Console of Jenkins failing #1',
        'Started by user admin',
        'error: boom',
        'Finished: FAILURE',
        '',
        'Jenkins build failing #1 finished: FAILURE in 401 ms.',
        'Error: Jenkins build failing #1 finished FAILURE',
        ''
      ].join('\n')
    )
    // Lines that are not the end of what was just shown stay: log: false, or another console.
    const other = failure(['Compiling', 'error: boom'])
    expect(render([...shownConsole, other, ''].join('\n'))).toContain(
      'Last 2 console lines:\nCompiling\nerror: boom\n'
    )
    expect(render([failure(tail), ''].join('\n'))).toContain(
      'Last 3 console lines:\nStarted by user admin\n'
    )
  })

  it("the action's plain lines are worded for a terminal; the console (a stop-commands region) is not", () => {
    const stdout = [
      "nothing answered: check the 'url' input",
      '::stop-commands::tok3n12345',
      "Jenkins says: check the 'url' input",
      '::tok3n12345::',
      ''
    ].join('\n')
    expect(render(stdout, { wording: text => text.replace("the 'url' input", '--url') })).toBe(
      ['nothing answered: check --url', "Jenkins says: check the 'url' input", ''].join('\n')
    )
  })

  it('debug lines only when verbose', () => {
    expect(render('::debug::GET /api/json 200\nx\n')).toBe('x\n')
    expect(render('::debug::GET /api/json 200\n', { verbose: true })).toBe(
      'Debug: GET /api/json 200\n'
    )
  })

  it('add-mask never shows, and its value is masked from then on, in either stream', () => {
    const out = render(
      'before p4ssw0rd\n::add-mask::p4ssw0rd\nafter p4ssw0rd\n::error::bad p4ssw0rd\n',
      {},
      new Redaction('runner'),
      'stderr p4ssw0rd\n'
    )
    expect(out).toBe('before p4ssw0rd\nafter ***\nError: bad ***\nstderr ***\n')
  })

  it('a mask added before the step (the secrets the command was given) holds from the first line', () => {
    const masker = new Redaction('runner')
    masker.add('tok3n-value')
    expect(render('url http://x?token=tok3n-value\n', {}, masker)).toBe('url http://x?token=***\n')
  })

  it('a stop-commands region is plain text, its markers hidden, a long token masked', () => {
    const stdout = [
      '::stop-commands::c0ns0le-t0ken',
      '::error::from Jenkins, inert',
      '##[group]also inert',
      'mentions c0ns0le-t0ken',
      '::c0ns0le-t0ken::',
      '::error::acted on again',
      ''
    ].join('\n')
    expect(render(stdout)).toBe(
      [
        '::error::from Jenkins, inert',
        '##[group]also inert',
        'mentions ***',
        'Error: acted on again',
        ''
      ].join('\n')
    )
  })

  it('commands the runner acts on silently show nothing; echo on shows command lines', () => {
    expect(render('::save-state name=a::1\n::set-output name=b::2\n::add-matcher::m.json\n')).toBe(
      ''
    )
    const echoed = render('::echo::on\n::add-mask::s3cret-x\n::warning::w s3cret-x\n::echo::off\n')
    // As on the runner, the line that turns echo off is echoed itself.
    expect(echoed).toBe('::add-mask::***\n::warning::w ***\nWarning: w ***\n::echo::off\n')
  })

  it('lines cut across chunks, \\r\\n and \\r line ends, a last line without a break', () => {
    let out = ''
    const log = new StepLog(text => (out += text), new Redaction('runner'), {
      verbose: false,
      color: false
    })
    for (const chunk of ['::gro', 'up::Tit', 'le\r', '\nline one\rline', ' two']) {
      log.feed('stdout', chunk)
    }
    expect(out).toBe('=== Title\nline one\n')
    log.end()
    expect(out).toBe('=== Title\nline one\nline two\n')
  })

  it('colours annotations and headings on a colour terminal only', () => {
    expect(render('::error::boom\n::group::G\n', { color: true })).toBe(
      '\x1b[31mError: boom\x1b[39m\n\x1b[1m=== G\x1b[22m\n'
    )
  })
})

describe('terminalSafe', () => {
  it('keeps colour sequences on a colour terminal, drops them elsewhere; escapes every other control', () => {
    const text = '\x1b[32mgreen\x1b[0m \x1b]52;c;ZXZpbA==\x07 \x1b[2J\ttab\x00\x9b'
    expect(terminalSafe(text, true)).toBe(
      '\x1b[32mgreen\x1b[0m \\x1b]52;c;ZXZpbA==\\x07 \\x1b[2J\ttab\\x00\\x9b'
    )
    expect(terminalSafe(text, false)).toBe('green \\x1b]52;c;ZXZpbA==\\x07 \\x1b[2J\ttab\\x00\\x9b')
  })
})
