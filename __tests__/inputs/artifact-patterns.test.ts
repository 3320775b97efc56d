import { describe, expect, test } from 'vitest'
import { parseArtifactPatterns, selectArtifacts } from '../../src/inputs/artifact-patterns.js'

const PATHS = [
  'build/libs/app.jar',
  'build/libs/app-sources.jar',
  'build/reports/tests/index.html',
  'build/reports/tests/css/style.css',
  '.env',
  'dist/.hidden/config',
  'README.md',
  'logs/a.log',
  'logs/deep/b.log',
  'Upper.TXT'
]

function select(patterns: string, platform: NodeJS.Platform = 'linux') {
  return selectArtifacts(parseArtifactPatterns(patterns, platform), PATHS, platform)
}

describe('selectArtifacts follows @actions/glob (upload-artifact) rules', () => {
  test.each([
    ['**', PATHS],
    // A directory a pattern matches brings everything below it (implicitDescendants).
    ['*', PATHS],
    ['build/libs/*.jar', ['build/libs/app.jar', 'build/libs/app-sources.jar']],
    ['**/*.jar\n!**/*-sources.jar', ['build/libs/app.jar']],
    ['!**/*-sources.jar\n**/*.jar', ['build/libs/app.jar', 'build/libs/app-sources.jar']],
    [
      '**/*.jar\n!**/*-sources.jar\nbuild/libs/app-sources.jar',
      ['build/libs/app.jar', 'build/libs/app-sources.jar']
    ],
    ['build/reports', ['build/reports/tests/index.html', 'build/reports/tests/css/style.css']],
    ['build/reports/', ['build/reports/tests/index.html', 'build/reports/tests/css/style.css']],
    ['logs/*.log', ['logs/a.log']],
    ['logs/**/*.log', ['logs/a.log', 'logs/deep/b.log']],
    ['dist/**', ['dist/.hidden/config']],
    ['README.md', ['README.md']],
    ['README.md/', []],
    ['{README.md,.env}', []],
    ['+(README).md', []],
    ['[Rl]*', ['README.md', 'logs/a.log', 'logs/deep/b.log']],
    ['*.md', ['README.md']],
    ['upper.txt', []]
  ])('%j selects %j', (patterns, expected) => {
    expect(select(patterns).selected).toEqual(expected)
  })

  test('Windows runners match case-insensitively and take \\ as a separator', () => {
    expect(select('upper.txt', 'win32').selected).toEqual(['Upper.TXT'])
    expect(select('build\\libs\\app.jar', 'win32').selected).toEqual(['build/libs/app.jar'])
  })

  test('include patterns that matched no path are reported, exclusions never', () => {
    const { unmatched } = select('**/*.war\n!nothing/**\n**/*.jar')
    expect(unmatched.map(p => p.text)).toEqual(['**/*.war'])
  })
})
