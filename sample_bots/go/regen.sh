#!/bin/sh
# Regenerates the committed protocol code in ./gen from ./proto (the kit's copy
# of the protocol). Run it after the proto changes, and commit ./gen; the
# build (./build.sh) only compiles. Needs only Go: the pinned buf,
# protoc-gen-go and protoc-gen-go-grpc are installed from the Go module proxy
# into ./bin/tools (or $GO_KIT_TOOLS), once per version. No protoc needed.
#
#   ./regen.sh        rewrite ./gen
#   ./regen.sh DIR    write DIR/gen instead, leaving ./gen alone
#                     (tests/kits/test_go_generated.py compares the two)
set -eu
cd "$(dirname "$0")"

BUF_VERSION=v1.75.0
PROTOC_GEN_GO_VERSION=v1.36.12
PROTOC_GEN_GO_GRPC_VERSION=v1.6.1

BASE="${1:-.}"
TOOLS="${GO_KIT_TOOLS:-$(pwd)/bin/tools}"
mkdir -p "$TOOLS"
TOOLS="$(cd "$TOOLS" && pwd)"

# install NAME PACKAGE VERSION: go install PACKAGE@VERSION into $TOOLS unless
# $TOOLS/NAME --version already ends with VERSION (buf prints 1.75.0,
# protoc-gen-go v1.36.12, protoc-gen-go-grpc 1.6.1).
install() {
  have="$("$TOOLS/$1" --version 2>/dev/null || true)"
  case "$have" in
    *[\ v]"${3#v}" | "${3#v}") ;;
    *) GOBIN="$TOOLS" go install "$2@$3" ;;
  esac
}
install buf github.com/bufbuild/buf/cmd/buf "$BUF_VERSION"
install protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go "$PROTOC_GEN_GO_VERSION"
install protoc-gen-go-grpc google.golang.org/grpc/cmd/protoc-gen-go-grpc "$PROTOC_GEN_GO_GRPC_VERSION"

rm -rf "$BASE/gen"
PATH="$TOOLS:$PATH" "$TOOLS/buf" generate --template buf.gen.yaml --output "$BASE"
