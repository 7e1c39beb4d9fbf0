#!/bin/sh
# Builds the bot from a clean tree: installs the protoc plugins (pinned) into
# ./bin/tools, generates the gRPC/protobuf code from ./proto (the kit's copy of
# the protocol: the build needs nothing outside this folder) into ./gen, then
# compiles ./bin/bot. Needs: go, protoc (Debian: protobuf-compiler).
set -eu
cd "$(dirname "$0")"

PROTOC_GEN_GO_VERSION=v1.36.12
PROTOC_GEN_GO_GRPC_VERSION=v1.6.1

TOOLS="$(pwd)/bin/tools"
mkdir -p "$TOOLS"
if [ ! -x "$TOOLS/protoc-gen-go" ] || [ ! -x "$TOOLS/protoc-gen-go-grpc" ]; then
  GOBIN="$TOOLS" go install "google.golang.org/protobuf/cmd/protoc-gen-go@$PROTOC_GEN_GO_VERSION"
  GOBIN="$TOOLS" go install "google.golang.org/grpc/cmd/protoc-gen-go-grpc@$PROTOC_GEN_GO_GRPC_VERSION"
fi

rm -rf gen
mkdir -p gen
PATH="$TOOLS:$PATH" protoc \
  --proto_path=proto \
  --go_out=gen --go_opt=paths=source_relative \
  --go-grpc_out=gen --go-grpc_opt=paths=source_relative \
  proto/hearts/v1/hearts.proto

go build -o bin/bot .
