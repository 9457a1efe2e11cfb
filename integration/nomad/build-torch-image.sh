#!/usr/bin/env bash
# Build a local Docker image with Debian's python3-torch and python3-xgboost for the Nomad
# Docker-driver tests (no registry is reachable here): debootstrap a bookworm root under the cache,
# then `docker import`. Tagged by the content of this recipe as build-mpi-image.sh does
# (IMAGE-<hash>, then IMAGE pointed at it), so a changed recipe builds a new image and an unchanged
# one is reused; containers of the old image keep running.
#   integration/nomad/build-torch-image.sh [image-name]   (default jobshift/torch:bookworm)
set -euo pipefail
image=${1:-jobshift/torch:bookworm}
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${JOBSHIFT_CACHE:-$repo/.cache}
root=$cache/images/torch-bookworm
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
recipe="debootstrap --variant=minbase --include=python3,python3-torch,python3-xgboost,procps bookworm"
tag=$(printf '%s' "$recipe" | sha256sum | cut -c1-12)

if docker image inspect "$image-$tag" >/dev/null 2>&1; then
	docker tag "$image-$tag" "$image"
	echo "build-torch-image: $image exists ($tag)"
	exit 0
fi
command -v debootstrap >/dev/null || { echo "build-torch-image: debootstrap is required" >&2; exit 1; }
# the root is reused only when this recipe made it ($root.recipe holds its hash)
if [[ ! -x $root/usr/bin/python3 || $(cat "$root.recipe" 2>/dev/null) != "$tag" ]]; then
	rm -rf "$root" "$root.recipe"
	mkdir -p "$root"
	# shellcheck disable=SC2086 # the recipe's words are debootstrap's arguments
	$recipe "$root" "$mirror"
	rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
	echo "$tag" >"$root.recipe"
fi
tar -C "$root" -c . | docker import -c 'CMD ["/bin/bash"]' - "$image-$tag"
docker tag "$image-$tag" "$image"
echo "build-torch-image: built $image ($tag)"
