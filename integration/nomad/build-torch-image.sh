#!/usr/bin/env bash
# Build a local Docker image with Debian's python3-torch for the Nomad Docker-driver tests (no
# registry is reachable here): debootstrap a bookworm root under the cache, then `docker import`.
# Idempotent: skipped when the image exists.
#   integration/nomad/build-torch-image.sh [image-name]   (default jobshift/torch:bookworm)
set -euo pipefail
image=${1:-jobshift/torch:bookworm}
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${JOBSHIFT_CACHE:-$repo/.cache}
root=$cache/images/torch-bookworm
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

if docker image inspect "$image" >/dev/null 2>&1; then
	echo "build-torch-image: $image exists"
	exit 0
fi
command -v debootstrap >/dev/null || { echo "build-torch-image: debootstrap is required" >&2; exit 1; }
if [[ ! -x $root/usr/bin/python3 ]] || ! chroot "$root" python3 -c 'import torch' 2>/dev/null; then
	rm -rf "$root"
	mkdir -p "$root"
	debootstrap --variant=minbase --include=python3,python3-torch,procps bookworm "$root" "$mirror"
	rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
fi
tar -C "$root" -c . | docker import -c 'CMD ["/bin/bash"]' - "$image"
echo "build-torch-image: built $image"
