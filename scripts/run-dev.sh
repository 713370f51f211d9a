#!/usr/bin/env bash
# run-dev.sh: `make run`: starts `flexlet serve` with its data in ./.data and says which
# KUBECONFIG to use. Ctrl-C stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
data="$PWD/.data"
mkdir -p "$data"
echo "flexlet: data in $data"
echo "flexlet: in another shell: export KUBECONFIG=$data/kubeconfig; kubectl get pods"
exec build/flexlet serve --data-dir "$data" --listen "${FLEXLET_LISTEN:-127.0.0.1:6443}" "$@"
