#!/usr/bin/env bash
# Prints the bin folder of Node.js VERSION, fetched once from the npm registry (the node-linux-<arch> package holds
# Node's own binary) into .node/<version> of this checkout: for a machine whose Node.js is older than repohost
# supports (22.12), and for CI's runs on each LTS line (.ci/run). Usage: PATH="$(bash scripts/node-line.sh 24.22.3):$PATH"
set -euo pipefail
version=${1:?usage: scripts/node-line.sh VERSION}
cd "$(dirname "$0")/.."
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "no Node.js package for $(uname -m)" >&2; exit 1 ;;
esac
dir=".node/$version"
if [ ! -x "$dir/bin/node" ]; then
  mkdir -p "$dir"
  (cd "$dir" && npm pack --silent "node-linux-$arch@$version" >/dev/null && tar xzf "node-linux-$arch-$version.tgz" --strip-components=1 package/bin/node && rm "node-linux-$arch-$version.tgz")
fi
echo "$PWD/$dir/bin"
