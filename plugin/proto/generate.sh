#!/usr/bin/env bash
# Regenerates driver.pb.go and driver_grpc.pb.go from driver.proto.
# Needs protoc (Debian: protobuf-compiler) and the Go plugins from the module
# proxy, pinned here so the generated code is reproducible.
set -euo pipefail
cd "$(dirname "$0")"
if ! command -v protoc >/dev/null; then
  echo "protoc not found: apt-get install -y protobuf-compiler" >&2
  exit 1
fi
bin=$(go env GOPATH)/bin
GOFLAGS=-mod=mod go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.6
GOFLAGS=-mod=mod go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.3.0
PATH="$bin:$PATH" protoc --proto_path=. \
  --go_out=. --go_opt=paths=source_relative \
  --go-grpc_out=. --go-grpc_opt=paths=source_relative \
  driver.proto
