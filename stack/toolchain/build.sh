#!/usr/bin/env bash
# Builds the real servers this project runs (Temporal dev server, FerretDB, and the Kubernetes
# control plane used by the stdio-runtime tests) from their Go modules, into a user-level cache
# outside the checkout, so that every clone and CI run on the same machine reuses them.
# Usage: build.sh temporal|ferretdb|etcd|kwok|kube|helm [...] (versions in the environment, see below)
# Each binary is built into a temporary name and renamed when complete, so an interrupted build
# never leaves a broken binary behind.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE_BIN="${CONNECTOR__CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/connector-registry}/bin"
mkdir -p "$CACHE_BIN"
command -v go >/dev/null || { echo "go is not installed: install Go 1.24+ or put the binaries on PATH" >&2; exit 3; }

# The pinned versions come from stack/toolchain/versions.ts (go-build.ts passes them).
for v in TEMPORAL_VERSION FERRETDB_VERSION ETCD_VERSION KWOK_VERSION KUBE_VERSION KUBE_STAGING_VERSION HELM_VERSION; do
  [ -n "${!v:-}" ] || { echo "$v is not set: run builds through 'npm run toolchain' (stack/toolchain/versions.ts)" >&2; exit 2; }
done

export GOFLAGS=-mod=mod
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

# go install into a private GOBIN, then move into the cache atomically.
install_into_cache() { # <binary names...>
  for b in "$@"; do mv -f "$work/bin/$b" "$CACHE_BIN/$b.tmp.$$" && mv -f "$CACHE_BIN/$b.tmp.$$" "$CACHE_BIN/$b"; done
}

build_temporal() {
  GOBIN="$work/bin" go install "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_VERSION"
  install_into_cache temporal
}

build_ferretdb() {
  # go install fails: the module lacks build/version/version.txt, which an embed needs.
  local dir
  dir=$(go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  cp -r "$dir" "$work/ferretdb" && chmod -R u+w "$work/ferretdb"
  echo "$FERRETDB_VERSION" > "$work/ferretdb/build/version/version.txt"
  # ferretdb.patch (beside this script) makes FerretDB 1.24's SQLite backend serve from its _id
  # index what it scanned the whole table for:
  # - a lookup by _id was written `_ferretdb_sjson->'$._id'` while the index is on
  #   `_ferretdb_sjson->"_id"`: the same value, but SQLite uses an expression index only for the
  #   very same expression, so every get, update and delete by _id scanned the table (seen in
  #   bench/lifecycle.ts: FerretDB's CPU per connector grew with the number of connectors);
  # - the lookup was used only when the filter was `_id` alone: `{ _id, version: { $lt: n } }`
  #   scanned too (every handler filters what it gets back again, so this is safe);
  # - ranges (`$gt`, `$gte`, `$lt`, `$lte` on strings) and `$in` on _id, a sort on _id, and the
  #   limit when the filter is such a condition alone: keyset paging walks the index
  #   (store/list-keys.ts lists connectors this way).
  (cd "$work/ferretdb" && patch -p1 --no-backup-if-mismatch -s < "$HERE/ferretdb.patch") || { echo "ferretdb.patch did not apply" >&2; exit 4; }
  (cd "$work/ferretdb" && CGO_ENABLED=0 go build -trimpath -buildvcs=false -o "$work/bin/ferretdb" ./cmd/ferretdb)
  install_into_cache ferretdb
  # Which patch this binary carries: binaries.ts builds it again when ferretdb.patch changes.
  sha256sum "$HERE/ferretdb.patch" | cut -d' ' -f1 > "$CACHE_BIN/ferretdb.patch-sha256.tmp.$$" && mv -f "$CACHE_BIN/ferretdb.patch-sha256.tmp.$$" "$CACHE_BIN/ferretdb.patch-sha256"
}

build_etcd() {
  mkdir -p "$work/etcdw" && cd "$work/etcdw" && go mod init local/etcdw >/dev/null 2>&1
  go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION"
  go build -o "$work/bin/etcd" go.etcd.io/etcd/server/v3
  install_into_cache etcd
}

build_kwok() {
  GOBIN="$work/bin" go install "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION" "sigs.k8s.io/kwok/cmd/kwokctl@$KWOK_VERSION"
  install_into_cache kwok kwokctl
}

build_kube() {
  # k8s.io/kubernetes needs its staging modules replaced by their published versions.
  mkdir -p "$work/k8sw" && cd "$work/k8sw" && go mod init local/k8sw >/dev/null 2>&1
  local gomod
  gomod=$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  for m in $(sed -n 's#^\t\(k8s\.io/[a-z0-9-]*\) v0\.0\.0$#\1#p' "$gomod"); do
    go mod edit "-replace=$m=$m@$KUBE_STAGING_VERSION"
  done
  go mod edit "-require=k8s.io/kubernetes@$KUBE_VERSION"
  printf '//go:build tools\npackage t\nimport (_ "k8s.io/kubernetes/cmd/kube-apiserver"; _ "k8s.io/kubernetes/cmd/kube-controller-manager"; _ "k8s.io/kubernetes/cmd/kube-scheduler")\n' > tools.go
  go mod tidy
  local minor=${KUBE_VERSION#v1.}; minor=${minor%%.*}
  go build -trimpath -ldflags "-X k8s.io/component-base/version.gitVersion=$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor" \
    -o "$work/bin/" k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes/cmd/kube-scheduler
  install_into_cache kube-apiserver kube-controller-manager kube-scheduler
}

build_helm() {
  GOBIN="$work/bin" go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
  install_into_cache helm
}

for target in "$@"; do
  start=$(date +%s)
  echo "building $target from Go modules into $CACHE_BIN (first time only; this takes minutes)..."
  (cd "$work" && "build_$target")
  echo "built $target in $(( $(date +%s) - start )) s"
done
