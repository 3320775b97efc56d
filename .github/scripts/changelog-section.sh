#!/usr/bin/env bash
# Prints the body of one version's section of a Keep a Changelog file: the
# lines under "## [1.2.3] - 2026-01-31" (or "## 1.2.3") up to the next "## "
# heading, without surrounding blank lines or link reference definitions.
# The release workflow uses it as the GitHub release's notes.
#
#   .github/scripts/changelog-section.sh VERSION [FILE]    # VERSION: 1.2.3 or v1.2.3; FILE: CHANGELOG.md
#
# Fails, saying why, when the version has no section or the section is empty.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: changelog-section.sh VERSION [FILE]" >&2
  exit 2
fi
version=${1#v}
file=${2:-CHANGELOG.md}
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]]; then
  echo "changelog-section: '$1' is not a version like 1.2.3" >&2
  exit 2
fi
if [ ! -r "$file" ]; then
  echo "changelog-section: cannot read $file" >&2
  exit 2
fi

# POSIX awk (mawk on Ubuntu runners): no gawk extensions.
awk -v version="$version" -v file="$file" '
  /^## / {
    if (found) exit
    title = substr($0, 4)
    sub(/^[ \t]+/, "", title)
    if (substr(title, 1, 1) == "[") {
      title = substr(title, 2)
      end = index(title, "]")
    } else {
      end = index(title, " ")
    }
    if (end > 0) title = substr(title, 1, end - 1)
    sub(/^v/, "", title)
    found = (title == version)
    next
  }
  found && /^\[[^ ]+\]: / { next }
  found { lines[++n] = $0 }
  END {
    first = 1
    while (first <= n && lines[first] ~ /^[ \t]*$/) first++
    last = n
    while (last >= first && lines[last] ~ /^[ \t]*$/) last--
    if (!found && n == 0) {
      print "changelog-section: no section for " version " in " file > "/dev/stderr"
      exit 1
    }
    if (first > last) {
      print "changelog-section: the section for " version " is empty" > "/dev/stderr"
      exit 1
    }
    for (i = first; i <= last; i++) print lines[i]
  }
' "$file"
