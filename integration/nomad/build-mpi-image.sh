#!/usr/bin/env bash
# Build the local Docker image the MPI tests run on the Docker driver: the torch image
# (build-torch-image.sh) plus Debian's openssh-server, openmpi-bin and python3-mpi4py, what an
# MPIJob's or a PAI horovod job's image brings. Tagged by the content of this recipe and the base
# image it starts from, so a changed recipe or a rebuilt base (build-torch-image.sh tags by its own
# recipe) builds a new image and an unchanged one is reused.
#   integration/nomad/build-mpi-image.sh [image-name]   (default jobshift/mpi:bookworm)
set -euo pipefail
image=${1:-jobshift/mpi:bookworm}
base=${JOBSHIFT_TORCH_IMAGE:-jobshift/torch:bookworm}
here=$(cd "$(dirname "$0")" && pwd)
recipe="FROM $base
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \\
      openssh-server openssh-client openmpi-bin python3-mpi4py && rm -rf /var/lib/apt/lists/*
"
docker image inspect "$base" >/dev/null 2>&1 || "$here/build-torch-image.sh" "$base"
tag=$({ printf '%s' "$recipe"; docker image inspect -f '{{.Id}}' "$base"; } | sha256sum | cut -c1-12)
if docker image inspect "$image-$tag" >/dev/null 2>&1; then
	docker tag "$image-$tag" "$image"
	echo "build-mpi-image: $image exists ($tag)"
	exit 0
fi
printf '%s' "$recipe" | docker build --network host -t "$image-$tag" -
docker tag "$image-$tag" "$image"
echo "build-mpi-image: built $image ($tag)"
