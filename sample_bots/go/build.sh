#!/bin/sh
# Builds ./bin/bot. Needs only Go (and the Go module proxy, or a filled module
# cache, for the dependencies in go.mod): the protocol code in ./gen is
# committed. After the proto in ./proto changes, run ./regen.sh and commit ./gen.
set -eu
cd "$(dirname "$0")"
go build -o bin/bot .
