#!/usr/bin/env bash
# Build Nomad v1.11.3 from the Go module proxy into a cache directory.
#
# Why from source: there is no registry/release download here, and a source build (no `release`
# tag) also includes mock_driver, which the tests can use. The module zip of
# github.com/hashicorp/nomad@v1.11.3 lacks its api/ sub-module (nested modules are cut out of a
# module zip) while its go.mod has `replace github.com/hashicorp/nomad/api => ./api`; we point that
# replace at the api module from the proxy at the version nomad's go.mod requires.
#
# Output: ${JOBSHIFT_CACHE:-<repo>/.cache}/nomad/bin/nomad (skipped when already built).
set -euo pipefail

NOMAD_VERSION=${NOMAD_VERSION:-v1.11.3}
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${JOBSHIFT_CACHE:-$repo/.cache}
out=$cache/nomad/bin/nomad
src=$cache/nomad/src-$NOMAD_VERSION

if [[ -x $out ]] && "$out" version 2>/dev/null | grep -q "Nomad ${NOMAD_VERSION}"; then
	echo "install-nomad: $out already built ($("$out" version | head -1))"
	exit 0
fi

command -v go >/dev/null || { echo "install-nomad: go is required" >&2; exit 1; }
mkdir -p "$cache/nomad/bin"
# Keep the cache out of git without touching the repository's own ignore files.
[[ -f $cache/.gitignore ]] || echo "*" >"$cache/.gitignore"

echo "install-nomad: downloading github.com/hashicorp/nomad@$NOMAD_VERSION"
dir=$(go mod download -json "github.com/hashicorp/nomad@$NOMAD_VERSION" |
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[[ -d $dir ]] || { echo "install-nomad: module download failed" >&2; exit 1; }

# The module cache is read-only; build from a writable copy so go.mod can be edited.
rm -rf "$src"
mkdir -p "$src"
cp -r "$dir"/. "$src"/
chmod -R u+w "$src"
cd "$src"

# nomad's own go.mod requires a 2023 placeholder pseudo-version (it relied on the directory
# replace), far too old for the server code; the proxy does not serve the api module at the
# v1.11.3 commit (403), so use the api snapshot the jobshift module itself builds against. It is
# newer than 1.11.3 (go 1.26, extra fields) but a superset for what the server code uses.
apiver=${NOMAD_API_VERSION:-$(sed -n 's/^[[:space:]]*github.com\/hashicorp\/nomad\/api \(v[^ ]*\).*/\1/p' "$repo/go.mod" | head -1)}
[[ -n $apiver ]] || { echo "install-nomad: set NOMAD_API_VERSION (no api version in $repo/go.mod)" >&2; exit 1; }
echo "install-nomad: using github.com/hashicorp/nomad/api@$apiver for ./api"
go mod edit -dropreplace github.com/hashicorp/nomad/api
go mod edit -replace "github.com/hashicorp/nomad/api=github.com/hashicorp/nomad/api@$apiver"
# go.sum lacks the api module's hashes (it was a directory replace); fetch them via the sumdb.
go mod download github.com/hashicorp/nomad/api
GOFLAGS=-mod=mod go list -m github.com/hashicorp/nomad/api >/dev/null

echo "install-nomad: building (several minutes on a small machine)"
start=$(date +%s)
# CGO on: the exec driver is only registered with cgo. No `release` tag: keeps mock_driver.
GOFLAGS=-mod=mod CGO_ENABLED=1 go build -trimpath -o "$out.tmp" \
	-ldflags "-X github.com/hashicorp/nomad/version.GitCommit=modproxy" .
mv "$out.tmp" "$out"
echo "install-nomad: built $out in $(( $(date +%s) - start ))s: $("$out" version | head -1)"
